import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type AuthorizationServer, startAuthorizationServer } from '../fixtures/auth/authorization-server.js';
import { type ProtectedMcpServer, startProtectedMcpServer } from '../fixtures/auth/protected-mcp-server.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { type CliPlace, killAll, runCli } from './manage-cli.js';

/**
 * `switchboard doctor` as a child process against real servers: the kitchen sink over stdio in
 * both eras and over HTTP, a protected server behind a real authorization server, and the
 * ways an entry goes wrong before and during a connect.
 */
let root: string;
let place: CliPlace;
let http: KitchenHttpHandle;
let as: AuthorizationServer;
let rs: ProtectedMcpServer;
let kitchenTools: number;

const kitchen = { command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-doctor-'));
  place = { project: root, data: join(root, 'data'), home: root, env: { DOCTOR_SET: 'yes' } };
  http = await startKitchenSinkHttp({ era: 'legacy' });
  as = await startAuthorizationServer();
  rs = await startProtectedMcpServer({ authorizationServer: as });
  await writeFile(
    join(root, 'switchboard.json'),
    JSON.stringify({
      servers: {
        kitchen: { ...kitchen, env: { MODE: '${DOCTOR_SET}' } },
        legacy: { ...kitchen, args: [...kitchen.args, '--era', 'legacy'], enabled: false },
        web: { url: http.url },
        missing: { command: 'switchboard-no-such-server-binary' },
        unset: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${DOCTOR_UNSET_TOKEN}' } },
        crash: {
          command: process.execPath,
          args: ['-e', 'process.stderr.write("boom: no config\\n"); process.exit(3)'],
        },
        protected: { url: rs.url, auth: { type: 'oauth', scopes: ['mcp:read'] } },
        plain: { url: rs.url },
      },
    }),
  );
  // What the server really offers, to compare the doctor's counts with.
  const probe = new Connection({ config: normalizeServerEntry({ name: 'probe', ...kitchen }) });
  await probe.connect();
  kitchenTools = (await probe.listTools()).items.length;
  await probe.close();
});
afterEach(() => killAll());
afterAll(async () => {
  await http.close();
  await rs.close();
  await as.close();
  await rm(root, { recursive: true, force: true });
});

interface Step {
  step: string;
  status: string;
  detail: string;
  ms?: number;
  fix?: string;
}
const steps = (out: string[]): Step[] => JSON.parse(out[0]!).steps;
const statusOf = (out: string[]) => steps(out).map((s) => [s.step, s.status]);

describe('switchboard doctor', () => {
  it('traces a healthy server step by step with timings, in both eras and over HTTP', async () => {
    const [json, human, web] = await Promise.all([
      runCli(place, '--json', 'doctor', 'kitchen'),
      runCli(place, 'doctor', 'legacy'),
      runCli(place, '--json', 'doctor', 'web'),
    ]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out[0]!);
    expect(report).toMatchObject({
      server: 'kitchen',
      transport: 'stdio',
      source: join(root, 'switchboard.json'),
      healthy: true,
      fixes: [],
      connection: {
        era: 'modern',
        protocolVersion: '2026-07-28',
        serverInfo: { name: 'kitchen-sink' },
        tools: kitchenTools,
        resources: expect.any(Number),
        prompts: expect.any(Number),
      },
    });
    expect(statusOf(json.out)).toEqual([
      ['config', 'ok'],
      ['variables', 'ok'],
      ['command', 'ok'],
      ['spawn', 'ok'],
      ['handshake', 'ok'],
      ['capabilities', 'ok'],
      ['tools', 'ok'],
      ['resources', 'ok'],
      ['prompts', 'ok'],
    ]);
    const byStep = Object.fromEntries(steps(json.out).map((s) => [s.step, s]));
    expect(byStep.variables!.detail).toBe('set: DOCTOR_SET');
    expect(byStep.command!.detail).toBe(`${process.execPath}`);
    expect(byStep.handshake!.detail).toMatch(/^server\/discover → protocol 2026-07-28, kitchen-sink /);
    expect(byStep.tools!.detail).toBe(`${kitchenTools} tools`);
    for (const s of ['spawn', 'handshake', 'tools']) expect(byStep[s]!.ms).toBeGreaterThanOrEqual(0);

    // A disabled entry is still checked, with a warning that says how to turn it on.
    expect(human.code).toBe(0);
    expect(human.out[0]).toBe(`legacy  (stdio, ${join(root, 'switchboard.json')})`);
    expect(human.out).toContainEqual(
      expect.stringMatching(/^ {2}warn +config +stdio entry from .*, disabled$/),
    );
    expect(human.out).toContainEqual(
      expect.stringMatching(
        /^ {2}ok +handshake +initialize → protocol 2025-11-25, kitchen-sink \S+ +\d+ ms$/,
      ),
    );
    expect(human.out).toContainEqual(
      expect.stringMatching(new RegExp(`^ {2}ok +tools +${kitchenTools} tools +\\d+ ms$`)),
    );
    expect(human.out.slice(-2)).toEqual([
      '"legacy" works, with one thing to look at:',
      '  1. "legacy" is disabled and does not start: run "switchboard enable legacy".',
    ]);

    expect(web.code).toBe(0);
    expect(statusOf(web.out).slice(0, 5)).toEqual([
      ['config', 'ok'],
      ['variables', 'ok'],
      ['url', 'ok'],
      ['dns', 'ok'],
      ['handshake', 'ok'],
    ]);
    expect(JSON.parse(web.out[0]!).connection).toMatchObject({ era: 'legacy', tools: kitchenTools });
  });

  it('exits 3 with what to fix when the server cannot be reached or needs a login', async () => {
    const [missing, unset, crash, needsLogin, plain, unknown] = await Promise.all([
      runCli(place, '--json', 'doctor', 'missing'),
      runCli(place, '--json', 'doctor', 'unset'),
      runCli(place, '--json', 'doctor', 'crash', '--timeout', '10'),
      runCli(place, 'doctor', 'protected'),
      runCli(place, '--json', 'doctor', 'plain'),
      runCli(place, 'doctor', 'nope'),
    ]);
    expect(missing.code).toBe(3);
    expect(statusOf(missing.out).slice(0, 4)).toEqual([
      ['config', 'ok'],
      ['variables', 'ok'],
      ['command', 'fail'],
      ['spawn', 'skip'],
    ]);
    expect(JSON.parse(missing.out[0]!).fixes).toEqual([
      'Install "switchboard-no-such-server-binary", or put its full path in "command" of "missing".',
    ]);

    expect(unset.code).toBe(3);
    expect(steps(unset.out)[1]).toEqual({
      step: 'variables',
      status: 'fail',
      detail: 'DOCTOR_UNSET_TOKEN is not set (headers.Authorization)',
      fix: 'Set DOCTOR_UNSET_TOKEN in the environment Switchboard runs in, or give a default: ${DOCTOR_UNSET_TOKEN:-value}.',
    });

    expect(crash.code).toBe(3);
    const failed = steps(crash.out).find((s) => s.step === 'handshake')!;
    expect(failed.status).toBe('fail');
    expect(failed.detail).toContain('boom: no config');
    expect(JSON.parse(crash.out[0]!).healthy).toBe(false);

    expect(needsLogin.code).toBe(3);
    expect(needsLogin.out).toContainEqual(
      expect.stringMatching(/^ {2}FAIL +auth +needs_auth: no usable login/),
    );
    expect(needsLogin.out.slice(-2)).toEqual([
      '"protected" cannot be used. To fix:',
      '  1. Log in: switchboard auth protected',
    ]);

    expect(plain.code).toBe(3);
    expect(steps(plain.out).find((s) => s.step === 'auth')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('Add "auth": { "type": "oauth" } to "plain"'),
    });

    expect(unknown.code).toBe(2);
    expect(unknown.err[0]).toContain('No server named "nope"');
  });
});
