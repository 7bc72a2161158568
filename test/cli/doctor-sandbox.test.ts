import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processCgroup, skipSandbox } from '../client/sandbox/sandbox-availability.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { type CliPlace, killAll, runCli } from './manage-cli.js';

/**
 * `switchboard doctor <server>` shows the sandbox in force: the profile in the config step,
 * and what the launch holds to (network, limits and how they hold) in a step of its own,
 * between the command and the spawn.
 */
let root: string;
let place: CliPlace;

const kitchen = { command: process.execPath, args: [kitchenSinkBin, '--transport', 'stdio'] };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-doctor-sandbox-'));
  place = { project: root, data: join(root, 'data'), home: root, env: { DOCTOR_TOKEN: 'set' } };
  await writeFile(
    join(root, 'switchboard.json'),
    JSON.stringify({
      servers: {
        boxed: {
          ...kitchen,
          sandbox: {
            network: { loopback: [5432], hosts: ['api.github.com'] },
            env: ['DOCTOR_TOKEN'],
            limits: { processes: 64 },
          },
        },
        plain: kitchen,
      },
    }),
  );
});
afterEach(() => killAll());
afterAll(() => rm(root, { recursive: true, force: true }));

interface Step {
  step: string;
  status: string;
  detail: string;
}

describe.skipIf(skipSandbox)('switchboard doctor and the sandbox', () => {
  it('shows the profile in the config step and what holds in a sandbox step', async () => {
    const [json, human] = await Promise.all([
      runCli(place, '--json', 'doctor', 'boxed'),
      runCli(place, 'doctor', 'boxed'),
    ]);
    expect(json.code, json.err.join('\n')).toBe(0);
    const steps = (JSON.parse(json.out[0]!) as { steps: Step[] }).steps;
    expect(steps.map((s) => s.step)).toEqual([
      'config',
      'variables',
      'command',
      'sandbox',
      'spawn',
      'handshake',
      'capabilities',
      'tools',
      'resources',
      'prompts',
    ]);
    const byStep = Object.fromEntries(steps.map((s) => [s.step, s]));
    expect(byStep.config!.detail).toBe(
      `stdio entry from ${join(root, 'switchboard.json')}; sandbox: custom profile (bubblewrap): ` +
        "network: the host's loopback on port 5432; api.github.com:443,80 through its proxy; " +
        'writes its state directory; 2048 MiB; 64 processes; inherits DOCTOR_TOKEN',
    );
    expect(byStep.sandbox!.status).toBe('ok');
    expect(byStep.sandbox!.detail).toContain(`state directory ${join(root, 'data', 'sandbox', 'boxed')}`);
    expect(byStep.sandbox!.detail).toContain("network: the host's loopback on port 5432");
    expect(byStep.sandbox!.detail).toMatch(
      processCgroup.held
        ? /limits: cgroup: 64 processes, 2048 MiB for the whole tree \(cgroup v[12]/
        : /limits: rlimits: .*2048 MiB data per process \(RLIMIT_DATA\)/,
    );
    expect(human.code).toBe(0);
    expect(human.out).toContainEqual(
      expect.stringMatching(/^ {2}ok +sandbox +state directory .*; network: /),
    );
  });

  it('shows "sandbox: off" and no sandbox step for an unsandboxed entry', async () => {
    const json = await runCli(place, '--json', 'doctor', 'plain');
    expect(json.code).toBe(0);
    const steps = (JSON.parse(json.out[0]!) as { steps: Step[] }).steps;
    expect(steps[0]!.detail).toMatch(/; sandbox: off$/);
    expect(steps.map((s) => s.step)).not.toContain('sandbox');
  });
});
