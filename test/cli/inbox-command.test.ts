import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type InboxEndpoint,
  inboxSocketPath,
  listInboxItems,
  openInboxEndpoint,
} from '../../src/cli/inbox-endpoint.js';
import type { SwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { ensureLocalToken } from '../../src/gateway/http/auth/local-token.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';
import { type CliPlace, killAll, runCli } from './manage-cli.js';

/**
 * `switchboard inbox` against a running host's inbox endpoint: a Host in this process (as a
 * gateway would run it) with a real server and an approval mode that asks before every call,
 * and the CLI in another process answering.
 */
let root: string;
let place: CliPlace;
let host: Host;
let endpoint: InboxEndpoint;
let token: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-inbox-'));
  place = { project: root, data: join(root, 'data'), home: root };
  host = await Host.create({
    dataDir: place.data,
    servers: [
      normalizeServerEntry({
        name: 'kitchen',
        command: process.execPath,
        args: [kitchenSinkBin, '--transport', 'stdio'],
      }),
    ],
    governance: { mode: 'read-only' },
  });
  // What serve and start do: the data dir's local token, which the CLI reads from its file.
  token = (await ensureLocalToken(place.data)).value;
  endpoint = await openInboxEndpoint(host.inbox, { dataDir: place.data, token });
  await catalogHas(host, 'mcp__kitchen__echo');
});
afterEach(() => killAll());
afterAll(async () => {
  await endpoint.close();
  await host.close();
  await rm(root, { recursive: true, force: true });
});

async function waiting(count: number): Promise<void> {
  await eventually(
    () => host.inbox.size,
    (n) => n === count,
    { what: `${count} inbox item(s)` },
  );
}

describe('switchboard inbox', () => {
  it('lists what waits, approves by an id prefix, declines, and fails clearly otherwise', async () => {
    const approved = host.callTool('mcp__kitchen__echo', { text: 'hello' }, { session: 'cli-test' });
    await waiting(1);
    const id = host.inbox.list()[0]!.id;
    const [json, human] = await Promise.all([runCli(place, '--json', 'inbox'), runCli(place, 'inbox')]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out[0]!)).toEqual({
      items: [
        expect.objectContaining({
          id,
          kind: 'approval',
          server: 'kitchen',
          tool: 'echo',
          session: 'cli-test',
          preview: expect.stringContaining('hello'),
          createdAt: expect.any(String),
          deadline: expect.any(String),
        }),
      ],
    });
    expect(human.out[0]).toMatch(/^ID +KIND +SERVER +TOOL +EXPIRES +WHAT$/);
    expect(human.out[1]).toMatch(new RegExp(`^${id.slice(0, 8)} +approval +kitchen +echo +\\d+s +`));
    expect(human.err.at(-1)).toContain('switchboard inbox approve <id>');

    const approve = await runCli(place, 'inbox', 'approve', id.slice(0, 6));
    expect(approve.code).toBe(0);
    expect(approve.err).toEqual(['Approved the call of kitchen/echo.']);
    const result = await approved;
    expect(result.kind === 'text' ? result.text : '').toContain('hello');

    const declined = host.callTool('mcp__kitchen__echo', { text: 'no' }).catch((e: SwitchboardError) => e);
    await waiting(1);
    const second = host.inbox.list()[0]!.id;
    const [decline, unknown, usage, elsewhere] = await Promise.all([
      runCli(place, '--json', 'inbox', 'decline', second),
      runCli(place, '--json', 'inbox', 'approve', 'ffffffff-nope'),
      runCli(place, 'inbox', 'decline', second, '--always'),
      runCli({ ...place, data: join(root, 'no-gateway') }, '--json', 'inbox'),
    ]);
    expect(decline.code).toBe(0);
    expect(JSON.parse(decline.out[0]!)).toEqual({ id: second, action: 'decline', always: false });
    expect(((await declined) as SwitchboardError).code).toBe('APPROVAL_DECLINED');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.out[0]!).error.code).toBe('NOT_FOUND');
    expect(usage.code).toBe(2);
    expect(elsewhere.code).toBe(3);
    expect(JSON.parse(elsewhere.out[0]!).error).toEqual({
      code: 'NOT_CONNECTED',
      message: expect.stringContaining(
        `No Switchboard gateway has run with the data dir ${join(root, 'no-gateway')}`,
      ),
    });
  });
});

describe('the inbox endpoint', () => {
  it('refuses a second process on the same data dir and replaces a socket left by a dead one', async () => {
    const other = await openInboxEndpoint(host.inbox, { dataDir: place.data, token }).catch(
      (e: SwitchboardError) => e,
    );
    expect((other as SwitchboardError).message).toContain(
      'Another Switchboard process already serves the inbox',
    );
    const dataDir = join(root, 'crashed');
    const first = await openInboxEndpoint(host.inbox, { dataDir, token });
    await first.close();
    // What a killed process leaves behind: the socket's name with nobody listening.
    await writeFile(inboxSocketPath(dataDir), '');
    const again = await openInboxEndpoint(host.inbox, { dataDir, token });
    await again.close();
  });

  it('answers only requests with the local token', async () => {
    const path = inboxSocketPath(place.data);
    expect(await listInboxItems({ path, token })).toEqual([]);
    const refused = await listInboxItems({ path, token: 'x'.repeat(43) }).catch((e: SwitchboardError) => e);
    expect(refused).toMatchObject({ code: 'AUTH_FAILED', message: expect.stringContaining('local token') });
  });

  it('puts a long data dir path in the temp dir', () => {
    const long = join(root, 'x'.repeat(120));
    expect(inboxSocketPath(long)).toMatch(/switchboard-inbox-[0-9a-f]{16}\.sock$/);
    expect(inboxSocketPath('/d')).toBe('/d/inbox.sock');
    expect(inboxSocketPath('/d', 'win32')).toMatch(/^\\\\\.\\pipe\\switchboard-inbox-[0-9a-f]{16}$/);
  });
});
