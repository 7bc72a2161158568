import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../../../src/gateway/api/api-types.js';
import { skipSandbox } from '../../client/sandbox/sandbox-availability.js';
import { eventually } from '../../helpers/wait.js';
import { type ApiUnderTest, kitchen, startApiUnderTest } from './api-harness.js';

/**
 * The API's server view shows each local server's sandbox in force (what the dashboard shows
 * per server): a config-file profile as written, a registration's default profile, "off" for
 * an unsandboxed one; and its entry gives the profile back as it is stored.
 */
let under: ApiUnderTest;
const PROFILE = { network: 'loopback', env: ['GITHUB_TOKEN'], limits: { processes: 64, cpus: 0.5 } };

beforeAll(async () => {
  if (skipSandbox) return;
  under = await startApiUnderTest({
    servers: [kitchen('boxed', { sandbox: PROFILE }), kitchen('plain')],
    ready: ['mcp__boxed__echo', 'mcp__plain__echo'],
  });
}, 60_000);
afterAll(async () => {
  await under?.close();
});

describe.skipIf(skipSandbox)('the sandbox in the API’s server view', () => {
  it('shows the profile of a config-file server, and "off" for an unsandboxed one', async () => {
    const boxed = await under.api.json<ApiServer & { entry: Record<string, unknown> }>('/api/servers/boxed');
    expect(boxed.state).toBe('connected');
    expect(boxed.sandbox).toBe(
      "custom profile (bubblewrap): network: the host's loopback (any port, through its proxy); " +
        'writes its state directory; 2048 MiB; 64 processes; 0.5 CPU; inherits GITHUB_TOKEN',
    );
    expect(boxed.entry.sandbox).toEqual({
      read: [],
      write: [],
      network: 'loopback',
      env: ['GITHUB_TOKEN'],
      limits: { memoryMb: 2048, processes: 64, cpus: 0.5 },
    });
    const { servers } = await under.api.json<{ servers: ApiServer[] }>('/api/servers');
    expect(servers.find((s) => s.name === 'plain')?.sandbox).toBe('off');
    expect(servers.find((s) => s.name === 'boxed')?.sandbox).toBe(boxed.sandbox);
  });

  it('shows the default profile on a server registered through the API', async () => {
    const { name: _name, ...entry } = kitchen('registered');
    await under.api.json('/api/servers', { body: { name: 'registered', entry } }, 201);
    const registered = await eventually(
      () => under.api.json<ApiServer>('/api/servers/registered'),
      (s) => s.state === 'connected',
      { what: 'connected the registration' },
    );
    expect(registered.sandbox).toBe(
      'default profile (bubblewrap): no network; writes its state directory; 2048 MiB; 256 processes',
    );
  });
});
