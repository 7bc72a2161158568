/**
 * Calls through one target (a replica, or a balancer in front of some): the latency of
 * sequential calls, and calls/s with many clients at once. The raw driver of the gateway
 * benchmark (bench/gateway/raw-client.ts), so the client's own cost stays small.
 */
import { type CallSession, type Era, openRawSession } from '../gateway/raw-client.js';
import { percentile } from '../stats.js';
import { TOKEN } from './bench-fleet.js';

export interface CellFigures {
  readonly p50: number;
  readonly p99: number;
  readonly callsPerSecond: number;
  readonly errors: number;
}

export interface CellPlan {
  readonly origin: string;
  readonly era: Era;
  readonly warmup: number;
  readonly calls: number;
  readonly throughputCalls: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

const open = (origin: string, era: Era, timeoutMs: number): Promise<CallSession> =>
  openRawSession({
    url: `${origin}/mcp`,
    era,
    timeoutMs,
    tool: 'mcp__kitchen__echo',
    headers: { authorization: `Bearer ${TOKEN}` },
  });

/** Latency over `calls` sequential calls, then calls/s of `concurrency` clients (each its own session). */
export async function measureCell(plan: CellPlan): Promise<CellFigures> {
  const single = await open(plan.origin, plan.era, plan.timeoutMs);
  const times: number[] = [];
  let errors = 0;
  try {
    for (let i = 0; i < plan.warmup; i++) await single.call();
    for (let i = 0; i < plan.calls; i++) {
      const started = performance.now();
      await single.call();
      times.push(performance.now() - started);
    }
  } finally {
    await single.close();
  }
  const sessions = await Promise.all(
    Array.from({ length: plan.concurrency }, () => open(plan.origin, plan.era, plan.timeoutMs)),
  );
  let left = plan.throughputCalls;
  const started = performance.now();
  try {
    await Promise.all(
      sessions.map(async (session) => {
        while (left > 0) {
          left--;
          await session.call().catch(() => {
            errors++;
          });
        }
      }),
    );
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    callsPerSecond: plan.throughputCalls / seconds,
    errors,
  };
}
