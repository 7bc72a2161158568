import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { listenEcho } from '../client/sandbox/probe-harness.js';
import { skipSandbox } from '../client/sandbox/sandbox-availability.js';
import { sandboxProbeBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';

/**
 * The host's side of the sandbox: servers registered at run time run sandboxed unless a person
 * with the right says otherwise; config-file entries opt in; a sandbox that cannot start shows
 * the server `failed` with what to do, and nothing runs.
 */
let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-host-sandbox-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

const FULL_AUTO = { mode: 'full-auto' } as const;
const probeEntry = { command: process.execPath, args: [sandboxProbeBin], protocol: 'legacy' } as const;

describe.skipIf(skipSandbox)('the host and sandboxes', () => {
  it('runs a server registered through the API in the default profile: the data directory is out of its reach', async () => {
    const secret = join(dataDir, 'credentials', 'token');
    mkdirSync(join(dataDir, 'credentials'), { recursive: true });
    writeFileSync(secret, 'a stored credential');
    host = await Host.create({ dataDir, governance: FULL_AUTO });
    const config = await host.register({ name: 'reg', ...probeEntry }, 'api', { via: 'api' });
    await catalogHas(host, 'mcp__reg__probe');
    const stored = host.serverConfig('reg')!.transport;
    expect(stored.kind === 'stdio' && stored.sandbox).toMatchObject({ kind: 'profile', name: 'default' });
    expect(config.transport.kind).toBe('stdio');
    const result = await host.callTool('mcp__reg__probe', { read: [secret], env: ['HOME'] });
    const report = JSON.parse(result.text) as { read: { ok: boolean }[]; env: { HOME: string } };
    expect(report.read[0]!.ok).toBe(false);
    expect(report.env.HOME).toBe(join(dataDir, 'sandbox', 'reg'));
  });

  it('refuses "sandbox": "off" from a registration unless the policy lets a person say it; an agent never', async () => {
    host = await Host.create({ dataDir, governance: FULL_AUTO });
    const refused = await host
      .register({ name: 'bare', ...probeEntry, sandbox: 'off' }, 'api', { via: 'api' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isSwitchboardError(refused, 'POLICY_DENIED')).toBe(true);
    expect((refused as Error).message).toMatch(/governance\.sandbox\.registrations/);
    expect(host.serverConfig('bare')).toBeUndefined();
    await host.close();

    host = await Host.create({
      dataDir,
      governance: { ...FULL_AUTO, sandbox: { registrations: 'optional' } },
    });
    const byAgent = await host
      .register({ name: 'bare', ...probeEntry, sandbox: 'off' }, 'agent', { via: 'agent' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isSwitchboardError(byAgent, 'POLICY_DENIED')).toBe(true);
    await host.register({ name: 'bare', ...probeEntry, sandbox: 'off' }, 'api', { via: 'api' });
    const t = host.serverConfig('bare')!.transport;
    expect(t.kind === 'stdio' && t.sandbox).toEqual({ kind: 'off' });
  });

  it('holds a stored "off" registration failed when the policy no longer allows it', async () => {
    host = await Host.create({
      dataDir,
      governance: { ...FULL_AUTO, sandbox: { registrations: 'optional' } },
    });
    await host.register({ name: 'bare', ...probeEntry, sandbox: 'off' }, 'api', { via: 'api' });
    await host.close();
    host = await Host.create({ dataDir, governance: FULL_AUTO });
    const status = host.servers().find((s) => s.name === 'bare');
    expect(status?.state).toBe('failed');
    expect(status?.error?.message).toMatch(/governance\.sandbox\.registrations/);
  });

  it('shows a sandboxed server failed with what to install when bubblewrap is missing, and starts nothing', async () => {
    const empty = join(dataDir, 'no-bwrap');
    mkdirSync(empty);
    const fileEntry = normalizeServerEntry({ name: 'boxed', ...probeEntry, sandbox: 'default' });
    host = await Host.create({
      dataDir,
      governance: FULL_AUTO,
      servers: [fileEntry],
      connection: { bwrapDirs: [empty] },
    });
    const failed = await eventually(
      () => host!.servers().find((s) => s.name === 'boxed'),
      (s) => s?.state === 'failed',
      { what: 'held the server failed' },
    );
    expect(failed?.error?.code).toBe('SANDBOX_UNAVAILABLE');
    expect(failed?.error?.message).toMatch(/bubblewrap/);
    expect(existsSync(join(dataDir, 'sandbox', 'boxed'))).toBe(false);
  });

  it('judges a registration’s filtered network by the sandbox policy, resolving names as the host does', async () => {
    const echo = await listenEcho();
    try {
      const asked: string[] = [];
      host = await Host.create({
        dataDir,
        governance: FULL_AUTO,
        resolver: async (name) => {
          asked.push(name);
          if (name !== 'svc.example.test') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
          return [{ address: '127.0.0.1', family: 4 }];
        },
      });
      const network = { hosts: [`svc.example.test:${echo.port}`], loopback: [echo.port] };
      await host.register({ name: 'net', ...probeEntry, sandbox: { network } }, 'api', { via: 'api' });
      await catalogHas(host, 'mcp__net__probe');
      const result = await host.callTool('mcp__net__probe', {
        tunnel: [`svc.example.test:${echo.port}`, 'other.example.test:443'],
      });
      const report = JSON.parse(result.text) as {
        tunnel: { status: number; echoed?: string; refused?: string }[];
      };
      expect(report.tunnel[0]).toMatchObject({ status: 200, echoed: 'pong:ping' });
      expect(report.tunnel[1]).toMatchObject({ status: 403, refused: expect.stringMatching(/not listed/) });
      expect(asked).toEqual(['svc.example.test']);
    } finally {
      echo.close();
    }
  });

  it('leaves a config-file entry without "sandbox" unsandboxed (it opts in)', async () => {
    const fileEntry = normalizeServerEntry({ name: 'plain', ...probeEntry });
    host = await Host.create({ dataDir, governance: FULL_AUTO, servers: [fileEntry] });
    await catalogHas(host, 'mcp__plain__probe');
    const result = await host.callTool('mcp__plain__probe', { env: ['HOME'] });
    expect((JSON.parse(result.text) as { env: { HOME: string } }).env.HOME).toBe(process.env.HOME);
  });
});
