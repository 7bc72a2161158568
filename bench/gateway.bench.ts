/**
 * Gateway benchmark: `switchboard serve` against the direct connection, the bare SDK HTTP
 * server and two stdio→HTTP bridges, all serving one echo upstream, in one run, same Node,
 * on 127.0.0.1:
 *   (a) direct stdio (SDK client; reported only)      (b) the echo server on Streamable HTTP
 *   (c) switchboard serve (esbuild bundle, plain node) (d) mcp-proxy   (e) supergateway
 *   (f) a bare HTTP→stdio relay (bare-relay.ts; raw driver, reported only): what any hop costs
 *   (g) (c) with OpenTelemetry on, every span sampled (h) (c) with the default sampler — both
 *       exporting traces and metrics by OTLP/HTTP to a sink in this process (telemetry-cost.ts)
 *   (i) (c) built from --base-ref (e.g. main), to show that telemetry off costs nothing
 * Both eras where a target speaks them (2025-11-25 sessions; 2026-07-28 stateless), for each
 * result size asked for (payloads.ts: the echo of `ping`, 1 KiB / 64 KiB / 1 MiB of text, a
 * 64 KiB base64 image; large sizes run fewer calls, so each cell moves about as many bytes as a
 * 16 KiB one would), each with two drivers: a raw node:http client (the target's own cost shows) and the SDK v2 client.
 * Targets are interleaved round by round; the figures are medians over the rounds (RSS: the
 * largest seen during c=64; throughput runs 2000 calls per level with the raw driver, 320 with
 * the SDK one, unless --throughput-calls says otherwise). Then the targets, on the raw driver's figures: added p50
 * over the floor ≤ 0.3 ms, c=64 throughput ≥ 2× the better bridge, gateway RSS ≤ 150 MiB.
 *
 *   npm run bench:gateway [-- --rounds 5 --calls 200 --warmup 50 --throughput-calls 2000]
 *     [--targets a,b,c,d,e,f] [--eras legacy,modern] [--drivers raw,sdk] [--quick] [--json]
 *     [--sizes small,1k,64k,1m,img64k]
 *     [--timeout-ms 10000] [--max-seconds 300 per size] [--cpu-prof DIR] [--gateway-node-args "--trace-gc"]
 *     [--verbose] [--base-ref main]
 * Environment: BENCH_ROUNDS, BENCH_CALLS, BENCH_WARMUP, BENCH_THROUGHPUT_CALLS, BENCH_TARGETS, BENCH_SIZES,
 * BENCH_CALL_TIMEOUT_MS, BENCH_MAX_SECONDS, BENCH_BASE_REF (flags win).
 */
import { rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { renderProfileSummary, summarizeCpuProfile } from './gateway/cpu-profile.js';
import { measureRound } from './gateway/measure.js';
import { startOtlpSink } from './gateway/otlp-sink.js';
import { payloadBytes, SIZE_KEYS, type SizeKey } from './gateway/payloads.js';
import { killAllSync, trackDescendants } from './gateway/processes.js';
import { type CallSession, openRawSession } from './gateway/raw-client.js';
import { type CellResult, judgeGoals, renderReport, summarize } from './gateway/report.js';
import { openSdkSession } from './gateway/sdk-client.js';
import {
  type Bundles,
  buildBundles,
  probeEra,
  type RunningTarget,
  startTarget,
  TARGET_KEYS,
  TARGET_LABELS,
  type TargetKey,
} from './gateway/targets.js';
import { renderTelemetryCosts, telemetryCosts } from './gateway/telemetry-cost.js';
import { fmt } from './stats.js';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string' },
    calls: { type: 'string' },
    warmup: { type: 'string' },
    'throughput-calls': { type: 'string' },
    targets: { type: 'string' },
    eras: { type: 'string' },
    drivers: { type: 'string' },
    sizes: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    'timeout-ms': { type: 'string' },
    'max-seconds': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'gateway-node-args': { type: 'string' },
    'base-ref': { type: 'string' },
  },
  strict: true,
});

function setting(flag: string | undefined, env: string, normal: number, quick: number): number {
  const raw = flag ?? process.env[env];
  const value = raw === undefined ? (flags.quick ? quick : normal) : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${env} / flag: "${raw}" is not a number`);
  return Math.floor(value);
}

function listSetting<T extends string>(raw: string | undefined, allowed: readonly T[], what: string): T[] {
  if (raw === undefined) return [...allowed];
  const picked = raw.split(',').map((s) => s.trim());
  for (const p of picked)
    if (!(allowed as readonly string[]).includes(p))
      throw new Error(`--${what}: "${p}" is not one of ${allowed.join(', ')}`);
  return allowed.filter((a) => picked.includes(a));
}

/** The sizes a run without --sizes measures: the small call and the two large text results of the goals. */
const DEFAULT_SIZES = 'small,64k,1m';
const SIZES = listSetting(flags.sizes ?? process.env.BENCH_SIZES ?? DEFAULT_SIZES, SIZE_KEYS, 'sizes');
/** The time cap without --max-seconds: this much per result size measured. */
const SECONDS_PER_SIZE = 300;

const PLAN = {
  rounds: Math.max(1, setting(flags.rounds, 'BENCH_ROUNDS', 5, 1)),
  warmup: setting(flags.warmup, 'BENCH_WARMUP', 50, 20),
  calls: Math.max(1, setting(flags.calls, 'BENCH_CALLS', 200, 50)),
  // Throughput is a steady state: the raw driver runs enough calls that warm-up and ramp are a
  // small part of them; the SDK driver, at ~2 ms of its own CPU per call, runs fewer.
  throughputCalls: {
    raw: Math.max(64, setting(flags['throughput-calls'], 'BENCH_THROUGHPUT_CALLS', 2000, 128)),
    sdk: Math.max(64, setting(flags['throughput-calls'], 'BENCH_THROUGHPUT_CALLS', 320, 128)),
  },
  callTimeoutMs: setting(flags['timeout-ms'], 'BENCH_CALL_TIMEOUT_MS', 10_000, 10_000),
  maxSeconds: setting(flags['max-seconds'], 'BENCH_MAX_SECONDS', SECONDS_PER_SIZE * SIZES.length, 120),
  startTimeoutMs: 30_000,
};
const BASE_REF = flags['base-ref'] ?? process.env.BENCH_BASE_REF;
// (i) needs a base ref to build; without one it is left out of the default set.
const TARGETS = listSetting(
  flags.targets ?? process.env.BENCH_TARGETS ?? TARGET_KEYS.filter((k) => k !== 'i' || BASE_REF).join(','),
  TARGET_KEYS,
  'targets',
);
const ERAS = listSetting(flags.eras, ['legacy', 'modern'] as const, 'eras');
const DRIVERS = listSetting(flags.drivers, ['raw', 'sdk'] as const, 'drivers');
// Absolute: the gateway runs in its own working directory.
const CPU_PROF_DIR = flags['cpu-prof'] === undefined ? undefined : resolve(flags['cpu-prof']);

/** Results up to this size run the plan's full call counts (see `scaled`). */
const FULL_COUNT_BYTES = 16 * 1024;

/**
 * The calls of one phase for results of `size`: the plan's `count` up to 16 KiB, fewer above,
 * so a cell moves about the bytes a 16 KiB one would (a 1 MiB cell at the full count would run
 * for minutes per target), but never fewer than `least` (or `count`, if that is less).
 */
function scaled(count: number, size: SizeKey, least: number): number {
  const bytes = payloadBytes(size);
  if (bytes <= FULL_COUNT_BYTES) return count;
  return Math.max(Math.min(least, count), Math.round((count * FULL_COUNT_BYTES) / bytes));
}

/** A target slower than this per call in its probe is measured lightly (one round, c=1 only). */
const SLOW_CALL_MS = 50;
const LIGHT_CALLS = 10;

const log = (line: string) => process.stderr.write(`${line}\n`);

// Every child dies with us, however we end.
process.on('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAllSync();
    process.exit(130);
  });
}
process.on('uncaughtException', (error) => {
  log(`gateway bench: ${error.stack ?? error.message}`);
  killAllSync();
  process.exit(1);
});
// The SDK's HTTP transport piles abort listeners on one signal (undici frees them only on GC).
process.removeAllListeners('warning');

async function openSession(
  target: RunningTarget,
  cell: Pick<CellResult, 'era' | 'driver' | 'size'>,
): Promise<CallSession & { pid?: number }> {
  const { era, size } = cell;
  // 64 calls of 1 MiB in flight take seconds each on two cores, in any target.
  const timeoutMs = Math.max(
    PLAN.callTimeoutMs,
    Math.min(60_000, (PLAN.callTimeoutMs * payloadBytes(size)) / (128 * 1024)),
  );
  if (cell.driver === 'sdk') return openSdkSession({ endpoint: target.endpoint, era, size, timeoutMs });
  if (target.endpoint.kind !== 'http') throw new Error('the raw driver speaks HTTP only');
  return openRawSession({ url: target.endpoint.url, era, size, timeoutMs });
}

/** Runs one round of one cell; a failure marks the cell failed and it is not run again. */
async function runCell(target: RunningTarget, cell: CellResult): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.(); // the last cell's garbage is not this one's cost
  let session: (CallSession & { pid?: number }) | undefined;
  try {
    session = await openSession(target, cell);
    const pid = session.pid ?? target.process?.pid;
    const figures = await measureRound(session, {
      ...(cell.light
        ? { warmup: 1, calls: LIGHT_CALLS, throughputCalls: 0 }
        : {
            warmup: scaled(PLAN.warmup, cell.size, 5),
            calls: scaled(PLAN.calls, cell.size, 20),
            throughputCalls: scaled(PLAN.throughputCalls[cell.driver], cell.size, 128),
          }),
      ...(pid !== undefined && { watch: { pid, children: () => trackDescendants(pid) } }),
    });
    cell.rounds.push(figures);
    if (flags.verbose) {
      log(
        `  (${cell.target}) ${cell.era} ${cell.driver}: p50 ${fmt(figures.p50, 3)} ms, ` +
          `c=64 ${fmt(figures.throughput[64] ?? Number.NaN, 0)}/s, ` +
          `RSS ${fmt((figures.rss?.mainKiB ?? Number.NaN) / 1024, 1)} MiB`,
      );
    }
  } catch (error) {
    cell.status = 'failed';
    cell.note = error instanceof Error ? error.message : String(error);
  } finally {
    await session?.close().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const deadline = started + PLAN.maxSeconds * 1000;
  // A hard stop in case something hangs past every per-call timeout.
  setTimeout(
    () => {
      log(`gateway bench: still running ${PLAN.maxSeconds + 60} s after the start; giving up.`);
      killAllSync();
      process.exit(1);
    },
    (PLAN.maxSeconds + 60) * 1000,
  ).unref();

  log(`building bundles…`);
  const bundles: Bundles = await buildBundles(BASE_REF !== undefined ? { baseRef: BASE_REF } : {});
  // The OTLP/HTTP receiver the telemetry targets export to (otlp-sink.ts).
  const sink = TARGETS.some((k) => k === 'g' || k === 'h') ? await startOtlpSink() : undefined;
  // The temp dir holds the bundles and the gateway's config and data; it goes however we end.
  process.on('exit', () => rmSync(bundles.dir, { recursive: true, force: true }));
  const running = new Map<TargetKey, RunningTarget>();
  const startFailures = new Map<TargetKey, string>();
  try {
    for (const key of TARGETS) {
      try {
        const t0 = performance.now();
        running.set(
          key,
          await startTarget(key, {
            bundles,
            timeoutMs: PLAN.startTimeoutMs,
            ...(CPU_PROF_DIR && { cpuProfDir: CPU_PROF_DIR }),
            ...(sink && { otlpEndpoint: sink.endpoint }),
            ...(flags['gateway-node-args'] && {
              gatewayNodeArgs: flags['gateway-node-args'].split(' ').filter((a) => a !== ''),
            }),
          }),
        );
        log(`(${key}) ${TARGET_LABELS[key]} ready in ${fmt(performance.now() - t0, 0)} ms`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        startFailures.set(key, message);
        log(`(${key}) ${TARGET_LABELS[key]} failed to start:\n${message}`);
      }
    }

    const cells: CellResult[] = [];
    for (const key of TARGETS) {
      for (const era of ERAS) {
        const target = running.get(key);
        const probe =
          target?.endpoint.kind === 'http'
            ? await probeEra(target.endpoint.url, era, PLAN.callTimeoutMs)
            : undefined;
        for (const [size, driver] of SIZES.flatMap((z) => DRIVERS.map((d) => [z, d] as const))) {
          const cell: CellResult = { size, target: key, era, driver, status: 'ok', rounds: [] };
          if (!target)
            Object.assign(cell, { status: 'failed', note: `did not start: ${startFailures.get(key)}` });
          else if (driver === 'raw' && target.endpoint.kind === 'stdio')
            Object.assign(cell, { status: 'n/a', note: 'stdio, driven by the SDK client only' });
          else if (driver === 'sdk' && key === 'f')
            Object.assign(cell, {
              status: 'n/a',
              note: 'a reference for the raw driver only (no MCP server)',
            });
          else if (probe && 'problem' in probe)
            Object.assign(cell, { status: 'n/a', note: `probe: ${probe.problem}` });
          else if (probe && probe.msPerCall > SLOW_CALL_MS) {
            Object.assign(cell, {
              light: true,
              note: `${fmt(probe.msPerCall, 0)} ms per call in the probe: measured once, ${LIGHT_CALLS} sequential calls`,
            });
          }
          cells.push(cell);
        }
      }
    }

    let stoppedEarly = false;
    for (let round = 0; round < PLAN.rounds && !stoppedEarly; round++) {
      const t0 = performance.now();
      // Rotate who goes first so drift on the machine hits every target alike.
      const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]!);
      for (const size of SIZES) {
        for (const era of ERAS) {
          for (const driver of DRIVERS) {
            for (const key of order) {
              if (performance.now() > deadline) {
                stoppedEarly = true;
                break;
              }
              const cell = cells.find(
                (c) => c.size === size && c.target === key && c.era === era && c.driver === driver,
              )!;
              const target = running.get(key);
              if (cell.status !== 'ok' || !target || (cell.light && cell.rounds.length > 0)) continue;
              await runCell(target, cell);
            }
          }
        }
      }
      log(`round ${round + 1}/${PLAN.rounds} done in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    }
    if (stoppedEarly)
      log(`stopped early: the ${PLAN.maxSeconds} s cap was reached (see the rounds column in --json).`);

    const summaries = cells.map(summarize);
    const goals = judgeGoals(summaries, ERAS, SIZES);
    const telemetry = telemetryCosts(cells, ERAS, SIZES);
    const elapsedS = (performance.now() - started) / 1000;
    if (flags.json) {
      console.log(
        JSON.stringify(
          {
            node: process.version,
            plan: { ...PLAN, targets: TARGETS, eras: ERAS, drivers: DRIVERS, sizes: SIZES },
            elapsedSeconds: elapsedS,
            stoppedEarly,
            targets: Object.fromEntries(
              TARGETS.map((k) => [
                k,
                {
                  label: TARGET_LABELS[k],
                  started: running.has(k),
                  ...(startFailures.has(k) && { error: startFailures.get(k) }),
                },
              ]),
            ),
            cells: summaries,
            goals,
            telemetry,
            ...(sink && { otlpExports: sink.exports }),
          },
          null,
          2,
        ),
      );
    } else {
      console.log(renderReport(summaries, ERAS, SIZES, goals));
      const costs = renderTelemetryCosts(telemetry);
      if (costs) console.log(costs);
      if (sink)
        console.log(
          `  (the sink took ${sink.exports.traces} trace and ${sink.exports.metrics} metric exports, ${fmt(sink.exports.bytes / 1024, 0)} KiB)`,
        );
      for (const [key, message] of startFailures)
        console.log(`\n(${key}) ${TARGET_LABELS[key]} failed to start:\n${message}`);
      console.log(
        `\nNode ${process.version}, ${PLAN.rounds} interleaved rounds per cell (${PLAN.warmup} warm-up calls, ` +
          `${PLAN.calls} sequential calls for p50/p99 and c=1, ${PLAN.throughputCalls.raw} calls (SDK driver ` +
          `${PLAN.throughputCalls.sdk}) at c=16 and at c=64; results over 16 KiB fewer, e.g. 1 MiB: ` +
          `${scaled(PLAN.calls, '1m', 20)} and ${scaled(PLAN.throughputCalls.raw, '1m', 128)}); ` +
          `medians over rounds, RSS the peak during c=64 (children: the upstream processes it spawned). ` +
          `${fmt(elapsedS, 0)} s in all.` +
          (stoppedEarly ? ` Stopped at the ${PLAN.maxSeconds} s cap: later cells have fewer rounds.` : ''),
      );
    }
  } finally {
    await Promise.all([...running.values()].map((t) => t.stop().catch(() => undefined)));
    await sink?.close();
    if (CPU_PROF_DIR) await printProfile(CPU_PROF_DIR, bundles);
    await bundles.remove();
  }
}

/** The top self-time functions and files of the newest gateway profile in `dir`. */
async function printProfile(dir: string, bundles: Bundles): Promise<void> {
  const files = (await readdir(dir).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const newest = files.at(-1);
  if (!newest) {
    log(`no .cpuprofile in ${dir} (the gateway did not exit on its own?)`);
    return;
  }
  const summary = await summarizeCpuProfile(join(dir, newest), {
    bundle: {
      url: pathToFileURL(bundles.switchboard).href,
      text: await readFile(bundles.switchboard, 'utf8'),
    },
    top: 30,
  });
  // On stderr under --json, so stdout stays one JSON document.
  (flags.json ? log : console.log)(renderProfileSummary(summary, join(dir, newest)));
}

await main();
