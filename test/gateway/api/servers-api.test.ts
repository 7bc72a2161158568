import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../../src/gateway/api/api-types.js';
import { misbehavingBin } from '../../fixtures/paths.js';
import { eventually } from '../../helpers/wait.js';
import { type ApiUnderTest, kitchen, nextEvent, startApiUnderTest } from './api-harness.js';

/**
 * `/api/session` and `/api/servers` over HTTP against a real host: one server from a config
 * file (toggled, never edited here) and servers added, replaced and removed through the API,
 * with the event stream following along.
 */
let under: ApiUnderTest;
/** Where the host is told the "files" entry comes from (the file itself is never read). */
const configFile = join(tmpdir(), 'switchboard.json');

beforeAll(async () => {
  under = await startApiUnderTest({
    servers: [kitchen('files', { description: 'From a file' })],
    ready: ['mcp__files__echo'],
    host: { sources: { files: configFile } },
  });
}, 60_000);

afterAll(async () => {
  await under?.close();
});

describe('the session', () => {
  it('names the principal, the MCP URL, the version, and a CSRF token', async () => {
    const session = await under.api.session();
    expect(session).toEqual({
      principal: 'local',
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      mcpUrl: under.gateway.url,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      canManage: true,
    });
    // The token is stable for the principal while the process runs.
    expect((await under.api.session()).csrfToken).toBe(session.csrfToken);
  });

  it('refuses state-changing requests without the right CSRF token, and takes the right one', async () => {
    const answer = { body: { action: 'decline' } };
    const missing = await under.api.error('/api/inbox/some-id', { ...answer, csrf: false }, 403);
    expect(missing.code).toBe('CSRF_REQUIRED');
    expect(missing.message).toContain('/api/session');
    expect(missing.message).toContain('X-Switchboard-CSRF');
    const wrong = await under.api.error('/api/inbox/some-id', { ...answer, csrf: 'x'.repeat(43) }, 403);
    expect(wrong.code).toBe('CSRF_REQUIRED');
    // With the token the request gets as far as the inbox, which has no such item.
    const right = await under.api.error('/api/inbox/some-id', answer, 404);
    expect(right).toMatchObject({ code: 'NOT_FOUND', details: { id: 'some-id' } });
  });
});

describe('servers', () => {
  it('lists the servers with their state, source and what can be done with them', async () => {
    const { servers } = await under.api.json<{ servers: ApiServer[] }>('/api/servers');
    const files = servers.find((s) => s.name === 'files');
    expect(files).toMatchObject({
      transport: 'stdio',
      enabled: true,
      source: configFile,
      editable: false,
      description: 'From a file',
      rejectedTools: [],
    });
    expect(files?.tools).toBeGreaterThan(5);
  });

  it('shows one server with its entry, and 404 for one that does not exist', async () => {
    const detail = await under.api.json<ApiServer & { entry: Record<string, unknown> }>('/api/servers/files');
    expect(detail.entry).toEqual({
      command: process.execPath,
      args: [expect.stringContaining('kitchen-sink')],
      description: 'From a file',
    });
    const missing = await under.api.error('/api/servers/nope', {}, 404);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('"nope"') });
  });

  it('adds a server, refuses the same name twice, replaces and removes it, noting each change', async () => {
    const added = await under.api.json<ApiServer>(
      '/api/servers',
      { body: { name: 'extra', entry: { command: process.execPath, args: [kitchenArg()] } } },
      201,
    );
    expect(added).toMatchObject({ name: 'extra', source: 'api', editable: true, enabled: true });
    const again = await under.api.error(
      '/api/servers',
      { body: { name: 'extra', entry: { command: 'x' } } },
      409,
    );
    expect(again.code).toBe('ALREADY_EXISTS');
    await eventually(
      () => under.api.json<ApiServer>('/api/servers/extra'),
      (s) => s.state === 'connected',
      { what: 'connected the added server' },
    );

    const replaced = await under.api.json<ApiServer>('/api/servers/extra', {
      method: 'PUT',
      body: { entry: { command: process.execPath, args: [kitchenArg()], description: 'Replaced' } },
    });
    expect(replaced.description).toBe('Replaced');
    expect(under.host.serverConfig('extra')?.description).toBe('Replaced');

    const removed = await under.api.request('/api/servers/extra', { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(under.host.serverConfig('extra')).toBeUndefined();
    await under.api.error('/api/servers/extra', {}, 404);

    const { items } = await under.api.json<{ items: { action: string; server: string; actor: string }[] }>(
      '/api/audit?server=extra',
    );
    expect(items.map((e) => e.action)).toEqual(['server_remove', 'server_replace', 'server_register']);
    expect(items.every((e) => e.actor === 'dashboard:local')).toBe(true);
  });

  it('shows a list the server cut short (its cursors go round)', async () => {
    const entry = { command: process.execPath, args: [misbehavingBin, '--mode', 'pages-cursor-cycle'] };
    await under.api.json<ApiServer>('/api/servers', { body: { name: 'loopy', entry } }, 201);
    try {
      const loopy = await eventually(
        () => under.api.json<ApiServer>('/api/servers/loopy'),
        (s) => s.state === 'connected' && s.incompleteLists !== undefined,
        { what: 'listed the looping server as incomplete' },
      );
      expect(loopy.incompleteLists).toEqual([{ kind: 'tools', reason: 'cursor-loop', pages: 3, items: 9 }]);
      const { servers } = await under.api.json<{ servers: ApiServer[] }>('/api/servers');
      expect(servers.find((s) => s.name === 'loopy')?.incompleteLists).toEqual(loopy.incompleteLists);
      expect(servers.find((s) => s.name === 'files')).not.toHaveProperty('incompleteLists');
    } finally {
      await under.api.request('/api/servers/loopy', { method: 'DELETE' });
    }
  });

  it('refuses bad entries with the field and the fix', async () => {
    const unknownField = await under.api.error(
      '/api/servers',
      { body: { name: 'bad', entry: { comand: 'node' } } },
      400,
    );
    expect(unknownField.code).toBe('INVALID_REQUEST');
    expect(unknownField.message).toContain('"entry.comand"');
    expect(unknownField.message).toContain('Did you mean "command"?');
    const badName = await under.api.error(
      '/api/servers',
      { body: { name: 'a b', entry: { command: 'x' } } },
      400,
    );
    expect(badName).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'name' } });
    const noCommand = await under.api.error('/api/servers', { body: { name: 'bad', entry: {} } }, 400);
    expect(noCommand.code).toBe('CONFIG_INVALID');
    expect(noCommand.message).toContain('"command"');
    const notJson = await under.api.error('/api/servers', { body: '{nope' }, 400);
    expect(notJson.message).toContain('not JSON');
    expect(under.host.serverConfig('bad')).toBeUndefined();
  });

  it('keeps config-file entries to their file: toggled here, not edited or removed', async () => {
    const put = await under.api.error(
      '/api/servers/files',
      { method: 'PUT', body: { entry: { command: 'x' } } },
      409,
    );
    expect(put).toMatchObject({ code: 'NOT_EDITABLE', details: { source: configFile } });
    expect(put.message).toContain(configFile);
    expect((await under.api.error('/api/servers/files', { method: 'DELETE' }, 409)).code).toBe(
      'NOT_EDITABLE',
    );
    expect(under.host.serverConfig('files')?.transport.kind).toBe('stdio');
  });

  it('disables and enables a server, and the stream says so', async () => {
    const stream = await under.api.stream('/api/stream');
    try {
      const first = await nextEvent<{ servers: ApiServer[] }>(stream, 'servers');
      expect(first.data.servers.find((s) => s.name === 'files')?.state).toBe('connected');
      expect((await nextEvent<{ items: unknown[] }>(stream, 'inbox')).data.items).toEqual([]);

      const disabled = await under.api.json<ApiServer>('/api/servers/files/disable', { method: 'POST' });
      expect(disabled).toMatchObject({ state: 'disabled', enabled: false });
      expect(disabled.hint).toContain('enable');
      const seen = await nextEvent<{ servers: ApiServer[] }>(stream, 'servers', (d) =>
        d.servers.some((s) => s.name === 'files' && s.state === 'disabled'),
      );
      expect(seen.data.servers.find((s) => s.name === 'files')?.enabled).toBe(false);

      const call = await under.api.error(
        '/api/tools/mcp__files__echo/call',
        { body: { arguments: { text: 'x' } } },
        409,
      );
      expect(call).toMatchObject({
        code: 'SERVER_UNAVAILABLE',
        details: { server: 'files', state: 'disabled' },
      });

      await under.api.json<ApiServer>('/api/servers/files/enable', { method: 'POST' });
      await nextEvent<{ servers: ApiServer[] }>(stream, 'servers', (d) =>
        d.servers.some((s) => s.name === 'files' && s.state === 'connected'),
      );

      const reloaded = await under.api.json<ApiServer>('/api/servers/files/reload', { method: 'POST' });
      expect(reloaded.state).not.toBe('connected');
      await nextEvent<{ servers: ApiServer[] }>(stream, 'servers', (d) =>
        d.servers.some((s) => s.name === 'files' && s.state === 'connected'),
      );
      const { items } = await under.api.json<{ items: { action: string }[] }>(
        '/api/audit?server=files&limit=3',
      );
      expect(items.map((e) => e.action)).toEqual(['server_reload', 'server_enable', 'server_disable']);
    } finally {
      await stream.cancel();
    }
  });

  it('answers an unknown route 404 and a known path with another method 405 and Allow', async () => {
    expect((await under.api.error('/api/nothing', {}, 404)).code).toBe('NOT_FOUND');
    const response = await under.api.request('/api/servers/files', { method: 'PATCH', body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PUT, DELETE');
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });
});

/** The kitchen-sink script, as the "files" entry runs it. */
function kitchenArg(): string {
  const transport = under.host.serverConfig('files')?.transport;
  if (transport?.kind !== 'stdio') throw new Error('"files" is not a stdio server');
  return transport.args[0]!;
}
