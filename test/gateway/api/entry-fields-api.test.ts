import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEntryFieldsSchema } from '../../../src/core/server-config.js';
import type { ApiServer } from '../../../src/gateway/api/api-types.js';
import { checkAnswerFields } from '../../../src/gateway/api/routes/inbox-routes.js';
import type { InboxItem } from '../../../src/host/inbox/inbox.js';
import { eventually } from '../../helpers/wait.js';
import { type ApiUnderTest, kitchen, startApiUnderTest } from './api-harness.js';

/**
 * Every field the API takes is honoured or refused with a 400 that names it — never kept and
 * ignored. A table of every field of a server entry, on a local and on a remote server: each
 * is either in the entry the API shows afterwards (as the host normalized it), or refused
 * naming the field. The table must name every field the schema has, so a new field fails here
 * until someone decides what it means on each kind of server.
 */
let under: ApiUnderTest;

beforeAll(async () => {
  under = await startApiUnderTest({ servers: [kitchen('files')], ready: ['mcp__files__echo'] });
}, 60_000);

afterAll(async () => {
  await under?.close();
});

type Base = 'local' | 'remote';
/**
 * `kept`: what GET shows under the field (default: what was sent), or under `as` for a field
 * that is short for another; `refused`: 400 naming it.
 */
type Expect =
  | { readonly kept: true; readonly back?: unknown; readonly as?: string }
  | { readonly refused: true };
type Row = readonly [field: string, value: unknown, local: Expect, remote: Expect];

const kept = (back?: unknown): Expect => ({ kept: true, ...(back !== undefined && { back }) });
const refused: Expect = { refused: true };

const ROWS: readonly Row[] = [
  ['transport', 'sse', refused, kept()],
  ['command', 'node', kept(), refused],
  ['args', ['-e', '0'], kept(), refused],
  ['env', { A: '1' }, kept(), refused],
  ['cwd', '/tmp', kept(), refused],
  ['url', 'http://127.0.0.1:9/mcp', refused, kept()],
  ['headers', { 'X-Key': 'k' }, refused, kept()],
  ['auth', { type: 'bearer', token: 't' }, refused, kept()],
  // Short for a bearer `auth`: the entry shows the long form.
  ['api_key', 'k-123', refused, { kept: true, as: 'auth', back: { type: 'bearer', token: 'k-123' } }],
  // Every other row sends `enabled: false` as well, so nothing connects; this one alone.
  ['enabled', false, kept(), kept()],
  ['timeouts', { connect: 5, startup: 300 }, kept(), kept()],
  ['protocol', 'legacy', kept(), kept()],
  ['trust', 'trusted', kept(), kept()],
  ['tools', { include: ['a*'], exclude: ['b'] }, kept(), kept()],
  ['description', 'what it is for', kept(), kept()],
  ['title', 'Shown', kept(), kept()],
  ['deferral', 'eager', kept(), kept()],
  ['optionalTasks', 'inline', kept(), kept()],
  ['taskAfter', { render: 5, '*': 30 }, kept(), kept()],
  ['roots', [{ uri: 'file:///tmp', name: 'tmp' }], kept(), kept()],
  // A profile shows as normalized: the default profile's limits filled in.
  [
    'sandbox',
    { read: ['/tmp'], network: { loopback: [5432], hosts: ['API.GitHub.com'] }, env: ['GITHUB_TOKEN'] },
    kept({
      read: ['/tmp'],
      write: [],
      network: { loopback: [5432], hosts: ['API.GitHub.com'] },
      env: ['GITHUB_TOKEN'],
      limits: { memoryMb: 2048, processes: 256 },
    }),
    refused,
  ],
];

const BASES: Readonly<Record<Base, Record<string, unknown>>> = {
  local: { command: process.execPath },
  remote: { url: 'http://127.0.0.1:9/mcp' },
};

describe('server entry fields', () => {
  it('the table names every field of an entry', () => {
    expect(ROWS.map(([field]) => field).sort()).toEqual(Object.keys(serverEntryFieldsSchema.shape).sort());
  });

  let n = 0;
  for (const [field, value, local, remote] of ROWS) {
    for (const [base, expected] of [
      ['local', local],
      ['remote', remote],
    ] as const) {
      it(`${field} on a ${base} server is ${'refused' in expected ? 'refused, naming it' : 'honoured'}`, async () => {
        const name = `f${++n}`;
        const entry = { ...BASES[base], ...(field !== 'enabled' && { enabled: false }), [field]: value };
        const response = await under.api.request('/api/servers', { body: { name, entry } });
        const text = await response.text();
        if ('refused' in expected) {
          expect(response.status, text).toBe(400);
          const { error } = JSON.parse(text) as { error: { message: string; details?: { field?: string } } };
          // Named as a field ("env") or as the setting it is (transport "sse").
          expect(error.message).toMatch(new RegExp(`"${field}"|\\b${field} "`));
          expect(under.host.serverConfig(name)).toBeUndefined();
          return;
        }
        expect(response.status, text).toBe(201);
        const shown = await under.api.json<{ entry: Record<string, unknown> }>(`/api/servers/${name}`);
        expect(shown.entry[expected.as ?? field]).toEqual(expected.back ?? value);
        await under.api.request(`/api/servers/${name}`, { method: 'DELETE' });
      });
    }
  }
});

describe('enabled', () => {
  it('POST with enabled: false registers the server disabled; enabling it connects it', async () => {
    const entry = { ...BASES.local, args: [kitchenArg()], enabled: false };
    const added = await under.api.json<ApiServer>('/api/servers', { body: { name: 'off', entry } }, 201);
    expect(added).toMatchObject({ state: 'disabled', enabled: false });
    expect(under.host.servers().find((s) => s.name === 'off')?.state).toBe('disabled');
    const enabled = await under.api.json<ApiServer>('/api/servers/off/enable', { method: 'POST' });
    expect(enabled.enabled).toBe(true);
    await eventually(
      () => under.api.json<ApiServer>('/api/servers/off'),
      (s) => s.state === 'connected',
      { what: 'connected the enabled server' },
    );
    // The entry shows the server as it is now, so sending it back keeps it enabled.
    const shown = await under.api.json<{ entry: Record<string, unknown> }>('/api/servers/off');
    expect(shown.entry.enabled).toBeUndefined();
  });

  it('PUT with enabled: false disables the server, and the entry says so', async () => {
    const entry = { ...BASES.local, args: [kitchenArg()] };
    await under.api.json<ApiServer>('/api/servers', { body: { name: 'put', entry } }, 201);
    const replaced = await under.api.json<ApiServer>('/api/servers/put', {
      method: 'PUT',
      body: { entry: { ...entry, enabled: false } },
    });
    expect(replaced).toMatchObject({ state: 'disabled', enabled: false });
    const shown = await under.api.json<{ entry: Record<string, unknown> }>('/api/servers/put');
    expect(shown.entry.enabled).toBe(false);
  });
});

describe('routes without a body', () => {
  it('refuse a body field with 400 naming it instead of ignoring it', async () => {
    for (const [method, path] of [
      ['POST', '/api/servers/files/disable'],
      ['POST', '/api/servers/files/reload'],
      ['DELETE', '/api/servers/files'],
    ] as const) {
      const error = await under.api.error(path, { method, body: { enabled: false } }, 400);
      expect(error, `${method} ${path}`).toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('"enabled"'),
      });
    }
    expect(under.host.servers().find((s) => s.name === 'files')?.state).toBe('connected');
    // An empty object is no field at all.
    const disabled = await under.api.json<ApiServer>('/api/servers/files/disable', {
      method: 'POST',
      body: {},
    });
    expect(disabled.state).toBe('disabled');
    await under.api.json<ApiServer>('/api/servers/files/enable', { method: 'POST' });
  });
});

describe('inbox answers', () => {
  const at = new Date();
  const item = (extra: Partial<InboxItem>): InboxItem => ({
    id: 'i',
    kind: 'approval',
    server: 's',
    tool: 't',
    preview: '',
    createdAt: at,
    deadline: at,
    ...extra,
  });
  const approval = item({});
  const form = item({
    kind: 'elicitation',
    mode: 'form',
    requestedSchema: { type: 'object', properties: {} },
  });
  const url = item({ kind: 'elicitation', mode: 'url', url: 'https://example.com/' });

  it('take the fields each item uses', () => {
    expect(() => checkAnswerFields(approval, { action: 'accept', always: true })).not.toThrow();
    expect(() => checkAnswerFields(approval, { action: 'decline', always: false })).not.toThrow();
    expect(() => checkAnswerFields(form, { action: 'accept', content: { a: 1 } })).not.toThrow();
    expect(() => checkAnswerFields(url, { action: 'accept' })).not.toThrow();
  });

  it('refuse a field the item would not use, naming it', () => {
    const cases: [InboxItem, Parameters<typeof checkAnswerFields>[1], string][] = [
      [approval, { action: 'decline', always: true }, 'always'],
      [approval, { action: 'accept', content: { a: 1 } }, 'content'],
      [form, { action: 'accept', always: true, content: {} }, 'always'],
      [form, { action: 'decline', content: { a: 1 } }, 'content'],
      [url, { action: 'accept', content: { a: 1 } }, 'content'],
    ];
    for (const [target, answer, field] of cases) {
      expect(() => checkAnswerFields(target, answer), `${target.kind} ${JSON.stringify(answer)}`).toThrow(
        expect.objectContaining({ status: 400, details: { field } }),
      );
    }
  });
});

/** The kitchen-sink script, as the "files" entry runs it. */
function kitchenArg(): string {
  const transport = under.host.serverConfig('files')?.transport;
  if (transport?.kind !== 'stdio') throw new Error('"files" is not a stdio server');
  return transport.args[0]!;
}
