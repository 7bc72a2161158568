/**
 * Replicas benchmark (docs/replicas.md): `switchboard serve` replicas on one PostgreSQL
 * database, on this one machine, with the kitchen-sink upstream over HTTP.
 *
 * 1. Calls: latency of sequential `echo` calls (p50, p99) and calls/s of `--concurrency`
 *    clients, in both eras (a 2025-11-25 session; 2026-07-28 stateless), through HAProxy
 *    (round-robin, no stickiness) in front of 1, 2 and 3 replicas, against one replica called
 *    directly: the baseline, measured in the same run, targets interleaved round by round.
 *    All on two cores: the figure to watch is the overhead against the direct replica (a
 *    session's calls that land on a replica other than its owner are relayed to the owner),
 *    not scaling.
 * 2. Failover: a 2025 session calling through the balancer; its replica killed with SIGKILL;
 *    the time from the witnessed exit to its next answered call, and the calls failed between.
 * 3. Rate-limit accuracy: one principal hammering three replicas through the balancer; the
 *    requests granted against `burst + rate × t` (each replica grants 1/N of the limit).
 *
 *   npm run bench:replicas [-- --rounds 3 --calls 300 --warmup 50 --throughput-calls 1500
 *     --concurrency 16 --failovers 3 --rate-seconds 8 --quick]
 * Medians over rounds (trials); ratios against the direct replica.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Replica } from '../test/helpers/replica-gateways.js';
import type { Era } from './gateway/raw-client.js';
import { type BenchFleet, startBenchFleet } from './replicas/bench-fleet.js';
import { failoverTrial } from './replicas/failover-trial.js';
import { type CellFigures, measureCell } from './replicas/measure-calls.js';
import { rateAccuracy } from './replicas/rate-accuracy.js';
import { fmt, median } from './stats.js';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string' },
    calls: { type: 'string' },
    warmup: { type: 'string' },
    'throughput-calls': { type: 'string' },
    concurrency: { type: 'string' },
    failovers: { type: 'string' },
    'rate-seconds': { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
  strict: true,
});

function setting(raw: string | undefined, normal: number, quick: number): number {
  const value = raw === undefined ? (flags.quick ? quick : normal) : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`"${raw}" is not a number`);
  return Math.floor(value);
}

const ROUNDS = setting(flags.rounds, 3, 1);
const CALLS = setting(flags.calls, 300, 60);
const WARMUP = setting(flags.warmup, 50, 10);
const THROUGHPUT_CALLS = setting(flags['throughput-calls'], 1_500, 300);
const CONCURRENCY = setting(flags.concurrency, 16, 8);
const FAILOVERS = setting(flags.failovers, 3, 1);
const RATE_SECONDS = setting(flags['rate-seconds'], 8, 4);
const TIMEOUT_MS = 20_000;
const ERAS: readonly Era[] = ['legacy', 'modern'];
const ERA_LABEL: Record<Era, string> = { legacy: '2025-11-25 session', modern: '2026-07-28' };
/** Limits far above what the calls reach: the first part measures calls, not refusals. */
const UNLIMITED = {
  perIp: { burst: 1_000_000, perSecond: 1_000_000 },
  perPrincipal: { burst: 1_000_000, perSecond: 1_000_000 },
};
const RATE = { burst: 50, perSecond: 100 };

interface Target {
  readonly label: string;
  readonly origin: string;
}

async function main(): Promise<void> {
  // Four for the calls, one per failover trial, one for the rate limit.
  const fleet = await startBenchFleet({ balancers: 4 + FAILOVERS + 1 });
  const stop = () => void fleet.close().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  try {
    await fleet.configure({ rateLimit: UNLIMITED });
    const [r1, r2, r3] = [await fleet.addReplica(), await fleet.addReplica(), await fleet.addReplica()];
    const targets: Target[] = [
      { label: 'one replica, direct', origin: r1.origin },
      { label: 'HAProxy, 1 replica', origin: (await fleet.balance([r1])).origin },
      { label: 'HAProxy, 2 replicas', origin: (await fleet.balance([r1, r2])).origin },
      { label: 'HAProxy, 3 replicas', origin: (await fleet.balance([r1, r2, r3])).origin },
    ];
    console.log(
      `replicas benchmark: ${ROUNDS} rounds, ${CALLS} sequential calls, ${THROUGHPUT_CALLS} calls by ${CONCURRENCY} clients; echo of "ping"`,
    );
    await callsPart(targets);
    await failoverPart(fleet);
    await ratePart(fleet);
  } finally {
    await fleet.close();
  }
}

async function callsPart(targets: readonly Target[]): Promise<void> {
  const cells = new Map<string, CellFigures[]>();
  for (let round = 0; round < ROUNDS; round++) {
    // A different target first each round, so no target always runs on a warmer machine.
    const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
    for (const target of order) {
      for (const era of ERAS) {
        const figures = await measureCell({
          origin: target.origin,
          era,
          warmup: WARMUP,
          calls: CALLS,
          throughputCalls: THROUGHPUT_CALLS,
          concurrency: CONCURRENCY,
          timeoutMs: TIMEOUT_MS,
        });
        const key = `${era}|${target.label}`;
        cells.set(key, [...(cells.get(key) ?? []), figures]);
      }
    }
  }
  console.log('\ncalls (medians over rounds; × is the ratio to one replica called directly)');
  console.log(
    `${'era'.padEnd(20)}${'target'.padEnd(22)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'calls/s'.padStart(9)}${'p50 ×'.padStart(8)}${'calls/s ×'.padStart(11)}${'errors'.padStart(8)}`,
  );
  for (const era of ERAS) {
    const of = (label: string) => summary(cells.get(`${era}|${label}`) ?? []);
    const base = of(targets[0]!.label);
    for (const target of targets) {
      const s = of(target.label);
      console.log(
        `${ERA_LABEL[era].padEnd(20)}${target.label.padEnd(22)}${fmt(s.p50).padStart(8)}${fmt(s.p99).padStart(8)}${fmt(s.callsPerSecond, 0).padStart(9)}${fmt(s.p50 / base.p50).padStart(8)}${fmt(s.callsPerSecond / base.callsPerSecond).padStart(11)}${String(s.errors).padStart(8)}`,
      );
    }
  }
}

function summary(runs: readonly CellFigures[]): CellFigures {
  return {
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    callsPerSecond: median(runs.map((r) => r.callsPerSecond)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

async function failoverPart(fleet: BenchFleet): Promise<void> {
  const db = new pg.Client({ connectionString: fleet.databaseUrl });
  await db.connect();
  const trials: { resumedMs: number; failed: number }[] = [];
  try {
    for (let trial = 0; trial < FAILOVERS; trial++) {
      while (fleet.alive().length < 3) await fleet.addReplica();
      const alive: Replica[] = fleet.alive().slice(-3);
      const balancer = await fleet.balance(alive);
      try {
        trials.push(
          await failoverTrial({
            balancer: balancer.origin,
            replicas: alive,
            db,
            before: 50,
            timeoutMs: TIMEOUT_MS,
          }),
        );
      } finally {
        await balancer.stop();
      }
    }
  } finally {
    await db.end();
  }
  const ms = trials.map((t) => t.resumedMs);
  console.log(
    `\nfailover: a 2025 session answered again ${fmt(median(ms), 0)} ms (median; ${fmt(Math.min(...ms), 0)}–${fmt(Math.max(...ms), 0)}) ` +
      `after its replica was killed, over ${trials.length} trials; failed calls per trial: ${trials.map((t) => t.failed).join(', ')}`,
  );
}

async function ratePart(fleet: BenchFleet): Promise<void> {
  // Fresh replicas with the limit configured (the stopped ones leave the set first).
  await fleet.stopReplicas();
  await fleet.configure({ rateLimit: { perIp: UNLIMITED.perIp, perPrincipal: RATE } });
  const replicas = [await fleet.addReplica(), await fleet.addReplica(), await fleet.addReplica()];
  const balancer = await fleet.balance(replicas);
  const runs = [];
  for (let round = 0; round < ROUNDS; round++) {
    // A bucket is full again after burst / rate: the next run starts where the first did.
    await new Promise((resolve) => setTimeout(resolve, (1000 * RATE.burst) / RATE.perSecond + 500));
    runs.push(
      await rateAccuracy({ balancer: balancer.origin, ...RATE, seconds: RATE_SECONDS, workers: CONCURRENCY }),
    );
  }
  const ratios = runs.map((r) => r.granted / r.configured);
  console.log(
    `\nrate limit: ${RATE.burst} burst + ${RATE.perSecond}/s for one principal over 3 replicas; granted / configured ` +
      `${fmt(median(ratios), 3)} (median over ${runs.length} runs of ${RATE_SECONDS} s; ${ratios.map((r) => fmt(r, 3)).join(', ')}); ` +
      `granted ${runs.map((r) => r.granted).join(', ')} of configured ${runs.map((r) => fmt(r.configured, 0)).join(', ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
