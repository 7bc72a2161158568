import { percentile } from '../stats.js';
import { cpuMs } from './processes.js';
import type { CallSession } from './raw-client.js';
import { type RssPeak, sampleRss } from './rss-sampler.js';

/** The concurrency levels throughput is measured at. */
export const CONCURRENCY = [1, 16, 64] as const;
export type Concurrency = (typeof CONCURRENCY)[number];

/** What one round of one cell (target × era × driver) measured. */
export interface RoundFigures {
  readonly p50: number;
  readonly p99: number;
  /** Calls per second; c=16 and c=64 are absent when the plan skipped them. */
  readonly throughput: Readonly<Partial<Record<Concurrency, number>>>;
  /** Peak RSS during the c=64 phase (absent when no process could be watched). */
  readonly rss?: RssPeak;
  /**
   * CPU time per call during the c=64 phase, in µs: the watched process and its children
   * (the upstream of a bridge). Less moved by other load on the machine than the rates are.
   */
  readonly cpuUs?: { readonly main: number; readonly children: number };
}

export interface RoundPlan {
  readonly warmup: number;
  /** Sequential calls: latency percentiles, and throughput at c=1. */
  readonly calls: number;
  /** Calls per concurrency level above 1; 0 skips those levels. */
  readonly throughputCalls: number;
  /** The process to watch during c=64, and its children then. */
  readonly watch?: { readonly pid: number; readonly children: () => readonly number[] };
}

/**
 * One round on an open session: warm-up, then `calls` sequential calls (p50/p99 and the c=1
 * rate), then `throughputCalls` calls from 16 and from 64 concurrent workers. The first failed
 * call ends the round with its error.
 */
export async function measureRound(session: CallSession, plan: RoundPlan): Promise<RoundFigures> {
  for (let i = 0; i < plan.warmup; i++) await session.call();
  const latencies = new Array<number>(plan.calls);
  const started = performance.now();
  for (let i = 0; i < plan.calls; i++) {
    const t = performance.now();
    await session.call();
    latencies[i] = performance.now() - t;
  }
  const sequentialRate = plan.calls / ((performance.now() - started) / 1000);
  const figures = { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  if (plan.throughputCalls === 0) return { ...figures, throughput: { 1: sequentialRate } };

  const c16 = await concurrentRate(session, 16, plan.throughputCalls);
  const children = plan.watch?.children() ?? [];
  const sampler = plan.watch && sampleRss(plan.watch.pid, children);
  const cpuOf = () =>
    plan.watch && {
      main: cpuMs(plan.watch.pid) ?? Number.NaN,
      children: children.reduce((sum, c) => sum + (cpuMs(c) ?? Number.NaN), 0),
    };
  const cpuBefore = cpuOf();
  let c64: number;
  let rss: RssPeak | undefined;
  try {
    c64 = await concurrentRate(session, 64, plan.throughputCalls);
  } finally {
    rss = sampler?.stop();
  }
  const cpuAfter = cpuOf();
  const perCall = (after: number, before: number) => ((after - before) * 1000) / plan.throughputCalls;
  const cpuUs = cpuBefore &&
    cpuAfter && {
      main: perCall(cpuAfter.main, cpuBefore.main),
      children: perCall(cpuAfter.children, cpuBefore.children),
    };
  return {
    ...figures,
    throughput: { 1: sequentialRate, 16: c16, 64: c64 },
    ...(rss && { rss }),
    ...(cpuUs && { cpuUs }),
  };
}

/** Calls per second with `workers` calls in flight at all times until `total` were made. */
async function concurrentRate(session: CallSession, workers: number, total: number): Promise<number> {
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (issued < total) {
        issued++;
        await session.call();
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}
