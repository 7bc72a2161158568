/**
 * How long a 2025 session is without answers when its replica dies: a session opened through
 * the balancer calls in a loop; once it has answered `before` calls, the replica that owns the
 * session (as the store says) is killed with SIGKILL, and the time from the witnessed exit to
 * the next answered call is measured, with the calls that failed in between.
 */
import type pg from 'pg';
import type { Replica } from '../../test/helpers/replica-gateways.js';
import { openRawSession } from '../gateway/raw-client.js';
import { TOKEN } from './bench-fleet.js';

export interface FailoverFigures {
  /** Milliseconds from the witnessed exit of the owner to the next answered call. */
  readonly resumedMs: number;
  /** Calls that failed in between (the one in flight, and any the balancer sent to the dead one). */
  readonly failed: number;
}

/** Bound on the calls after the kill, so a session that never comes back ends the trial. */
const MAX_CALLS_AFTER_KILL = 2_000;

export async function failoverTrial(options: {
  readonly balancer: string;
  readonly replicas: readonly Replica[];
  readonly db: pg.Client;
  readonly before: number;
  readonly timeoutMs: number;
}): Promise<FailoverFigures> {
  let sessionId: string | undefined;
  const session = await openRawSession({
    url: `${options.balancer}/mcp`,
    era: 'legacy',
    timeoutMs: options.timeoutMs,
    tool: 'mcp__kitchen__echo',
    headers: { authorization: `Bearer ${TOKEN}` },
    onSession: (id) => {
      sessionId = id;
    },
  });
  try {
    for (let i = 0; i < options.before; i++) await session.call();
    const owner = await options.db.query<{ url: string }>(
      'select r.url from mcp_sessions s join replicas r on r.id = s.owner where s.id = $1',
      [sessionId],
    );
    const victim = options.replicas.find((r) => r.origin === owner.rows[0]?.url);
    if (!victim) throw new Error(`no live replica owns session ${sessionId}`);
    process.kill(victim.pid, 'SIGKILL');
    await victim.exited;
    const killedAt = performance.now();
    let failed = 0;
    for (let i = 0; i < MAX_CALLS_AFTER_KILL; i++) {
      try {
        await session.call();
        return { resumedMs: performance.now() - killedAt, failed };
      } catch {
        failed++;
      }
    }
    throw new Error(`the session answered none of ${MAX_CALLS_AFTER_KILL} calls after its replica died`);
  } finally {
    await session.close();
  }
}
