import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '../src/client/connection.js';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { findBwrap } from '../src/client/sandbox/bwrap-probe.js';
import { prepareSandbox } from '../src/client/sandbox/sandbox-launch.js';
import { DEFAULT_SANDBOX_PROFILE, type RawSandbox } from '../src/core/config/sandbox-config.js';
import { describeError } from '../src/core/errors.js';
import { normalizeServerEntry } from '../src/core/server-config.js';
import { sandboxDestinations } from '../src/policy/sandbox-destination.js';
import { kitchenSinkBin } from '../test/fixtures/paths.js';
import { fmt, median } from './stats.js';

/**
 * What a sandbox costs (part of `bench:host`). Three measures, each interleaved round by round
 * so every variant sees the same machine:
 *
 * 1. spawn-to-ready (spawn, handshake, first list) and call latency of the kitchen sink,
 *    unsandboxed vs the default profile vs a filtered network (`loopback`, which starts the
 *    relay first). Goal for the default profile: ≤ 30 ms more to start, no measurable call
 *    overhead.
 * 2. The launch alone, without Node or MCP in the way: `/bin/true` plain vs under the default
 *    profile's launch (bubblewrap, its namespaces and mounts, the cgroup joined by /bin/sh,
 *    prlimit) — the floor of what a sandbox adds.
 * 3. Preparing a launch on the host (paths, state directory, cgroup, the probe cached).
 */
type Variant = 'plain' | 'sandboxed' | 'filtered';
const SANDBOX: Record<Variant, RawSandbox | undefined> = {
  plain: undefined,
  sandboxed: 'default',
  filtered: { network: 'loopback' },
};

export async function sandboxOverhead(rounds: number, calls = 200): Promise<void> {
  const unavailable = await findBwrap().then(
    () => undefined,
    (error: unknown) => describeError(error),
  );
  if (unavailable) {
    console.log(`sandbox overhead                          skipped: ${unavailable}`);
    return;
  }
  const sandboxDir = mkdtempSync(join(tmpdir(), 'sb-bench-sandbox-'));
  const ready: Record<Variant, number[]> = { plain: [], sandboxed: [], filtered: [] };
  const call: Record<Variant, number[]> = { plain: [], sandboxed: [], filtered: [] };
  const launch = { plain: [] as number[], sandboxed: [] as number[], prepare: [] as number[] };
  let inForce = '';
  try {
    for (let r = 0; r < rounds; r++) {
      for (const kind of ['plain', 'sandboxed', 'filtered'] as const) {
        const sandbox = SANDBOX[kind];
        const conn = new Connection({
          config: normalizeServerEntry({
            name: `bench-${kind}`,
            command: process.execPath,
            args: [kitchenSinkBin],
            protocol: 'legacy',
            ...(sandbox !== undefined && { sandbox }),
          }),
          eraStore: new MemoryEraVerdictStore(),
          sandboxDir,
          sandboxNetwork: { judge: sandboxDestinations },
          onLog: (entry) => {
            if (kind === 'sandboxed' && entry.text.startsWith('sandboxed (bubblewrap)')) inForce = entry.text;
          },
        });
        const t0 = performance.now();
        await conn.connect();
        ready[kind].push(performance.now() - t0);
        for (let i = 0; i < calls; i++) {
          const t = performance.now();
          await conn.callTool('echo', { text: 'x' });
          call[kind].push(performance.now() - t);
        }
        await conn.close();
      }
      for (let i = 0; i < 5; i++) {
        launch.plain.push(await timeRun('/bin/true', []));
        const t = performance.now();
        const prepared = await prepareSandbox({
          server: 'bench-true',
          profile: DEFAULT_SANDBOX_PROFILE,
          command: '/bin/true',
          args: [],
          env: { PATH: '/usr/bin:/bin' },
          roots: [],
          stateRoot: sandboxDir,
          vars: process.env,
        });
        launch.prepare.push(performance.now() - t);
        launch.sandboxed.push(await timeRun(prepared.command, prepared.args, prepared.env));
        await prepared.release();
      }
    }
  } finally {
    rmSync(sandboxDir, { recursive: true, force: true });
  }
  const row = (label: string, value: string) => console.log(`${label.padEnd(42)}${value}`);
  const delta = (a: number[], b: number[]) => median(a) - median(b);
  row(
    'spawn-to-ready, sandboxed vs plain',
    `${fmt(median(ready.sandboxed), 1).padStart(7)} ms vs ${fmt(median(ready.plain), 1)} ms: ${sign(delta(ready.sandboxed, ready.plain))} ms (goal ≤ 30)`,
  );
  row(
    'spawn-to-ready, loopback network vs plain',
    `${fmt(median(ready.filtered), 1).padStart(7)} ms vs ${fmt(median(ready.plain), 1)} ms: ${sign(delta(ready.filtered, ready.plain))} ms (the relay's Node)`,
  );
  row(
    'call latency, sandboxed vs plain',
    `${fmt(median(call.sandboxed), 2).padStart(7)} ms vs ${fmt(median(call.plain), 2)} ms: ×${fmt(median(call.sandboxed) / median(call.plain))}`,
  );
  row(
    'call latency, loopback network vs plain',
    `${fmt(median(call.filtered), 2).padStart(7)} ms vs ${fmt(median(call.plain), 2)} ms: ×${fmt(median(call.filtered) / median(call.plain))}`,
  );
  row(
    'launch of /bin/true, sandboxed vs plain',
    `${fmt(median(launch.sandboxed), 1).padStart(7)} ms vs ${fmt(median(launch.plain), 1)} ms: ${sign(delta(launch.sandboxed, launch.plain))} ms`,
  );
  row('preparing a launch (host side)', `${fmt(median(launch.prepare), 2).padStart(7)} ms`);
  console.log(`  in force: ${inForce.replace(/^sandboxed \(bubblewrap\); state directory \S+; /, '')}`);
}

function sign(n: number): string {
  return `${n >= 0 ? '+' : ''}${fmt(n, 1)}`;
}

/** Runs a program to its end; the time from spawn to exit, ms. */
function timeRun(command: string, args: readonly string[], env?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(command, [...args], { stdio: 'ignore', ...(env && { env }) });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - t) : reject(new Error(`${command} exited with ${code}`)),
    );
  });
}
