import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY } from '../../../src/core/config/gateway-config.js';
import { type LocalTask, TaskLedger } from '../../../src/gateway/tasks/task-ledger.js';
import type { Owner } from '../../../src/gateway/tasks/task-owner.js';
import { openSqliteStore, type Store } from '../../../src/storage/index.js';
import { eventually } from '../../helpers/wait.js';

/**
 * The ledger over a real (in-memory SQLite) store, two "processes" sharing it: a task whose
 * owner is gone reads as failed with the reason, one whose owner lives reads as it is; a task
 * is its principal's alone; the sweep deletes expired tasks and stops their work; closing
 * fails what still runs; the ttl a client asks for is held to the settings.
 */
const stores: Store[] = [];
const ledgers: TaskLedger[] = [];
afterEach(async () => {
  await Promise.all(ledgers.splice(0).map((l) => l.close()));
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

async function store(): Promise<Store> {
  const s = await openSqliteStore({ memory: true });
  stores.push(s);
  return s;
}

function ledger(
  s: Store,
  self: Owner,
  options: { alive?: readonly number[]; sweepMs?: number; leaseMs?: number } = {},
) {
  const l = new TaskLedger({
    repository: s.tasks,
    settings: { ...DEFAULT_GATEWAY.tasks, maxRunning: 2 },
    self,
    alive: (pid) => (options.alive ?? []).includes(pid),
    ...(options.sweepMs !== undefined && { sweepMs: options.sweepMs }),
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
  });
  ledgers.push(l);
  return l;
}

const work = (): LocalTask & { aborted: string[] } => {
  const aborted: string[] = [];
  return { aborted, abort: (reason) => aborted.push(reason) };
};
const task = (id: string, ttlMs = 60_000) => ({
  id,
  principal: 'alice',
  server: 's',
  tool: 't',
  kind: 'run' as const,
  status: 'working' as const,
  ttlMs,
});

describe('TaskLedger', () => {
  it("fails a task whose owner's process is gone, with the reason, at the first read", async () => {
    const s = await store();
    const dead = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    await dead.create(task('sbt-one'), work());
    const reader = ledger(s, { host: 'box', pid: 300, nonce: 'b' }, { alive: [300] });
    const read = await reader.read('sbt-one', 'alice');
    expect(read).toMatchObject({ status: 'failed' });
    expect(read?.statusMessage).toContain('is no longer running');
    expect(read?.outcome).toMatchObject({ error: { code: -32603, data: { code: 'TASK_WORKER_LOST' } } });
  });

  it('leaves the tasks of another ledger of this very process alone (two gateways, one process)', async () => {
    const s = await store();
    const one = new TaskLedger({ repository: s.tasks, settings: DEFAULT_GATEWAY.tasks });
    const two = new TaskLedger({ repository: s.tasks, settings: DEFAULT_GATEWAY.tasks });
    ledgers.push(one, two);
    expect(one.owner).not.toBe(two.owner);
    await one.create(task('sbt-shared'), work());
    expect(await two.read('sbt-shared', 'alice')).toMatchObject({ status: 'working' });
    // Once the first closes, its tasks are failed by it, and the second reads them so.
    await one.close();
    expect(await two.read('sbt-shared', 'alice')).toMatchObject({ status: 'failed' });
  });

  it('leaves a task whose owner still runs as it is', async () => {
    const s = await store();
    const owner = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    await owner.create(task('sbt-two'), work());
    const reader = ledger(s, { host: 'box', pid: 300, nonce: 'b' }, { alive: [200, 300] });
    expect(await reader.read('sbt-two', 'alice')).toMatchObject({ status: 'working' });
    expect(await owner.read('sbt-two', 'alice')).toMatchObject({ status: 'working' });
  });

  it('fails a task of its own that no longer runs here (its work ended without a result)', async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    await l.create(task('sbt-three'), work());
    l.release('sbt-three');
    expect(await l.read('sbt-three', 'alice')).toMatchObject({ status: 'failed' });
  });

  it("reads another principal's task, and ids not of its shape, as nothing", async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    await l.create(task('sbt-four'), work());
    expect(await l.read('sbt-four', 'bob')).toBeUndefined();
    expect(await l.read('four', 'alice')).toBeUndefined();
    expect(await l.read('sbt-four', 'alice')).toBeDefined();
  });

  it('sweeps expired tasks away and stops their work, and stops work another process finished', async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' }, { sweepMs: 50 });
    const expiring = work();
    const cancelled = work();
    await l.create(task('sbt-short', 1), expiring);
    await l.create(task('sbt-long'), cancelled);
    // Cancelled through another gateway process.
    await s.tasks.update('sbt-long', { status: 'cancelled' });
    await eventually(
      () => expiring.aborted.length + cancelled.aborted.length,
      (n) => n === 2,
      { what: 'stopped both', timeoutMs: 10_000 },
    );
    expect(expiring.aborted).toEqual(['The task expired.']);
    expect(cancelled.aborted).toEqual(['The task is cancelled.']);
    expect(l.running).toBe(0);
    expect(await s.tasks.prune()).toBe(0);
  });

  it('fails what still runs when it closes, and then takes no more', async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    const running = work();
    await l.create(task('sbt-five'), running);
    expect(l.hasRoom()).toBe(true);
    await l.close();
    expect(running.aborted).toHaveLength(1);
    expect(await s.tasks.get('sbt-five')).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringContaining('shut down'),
    });
    expect(l.hasRoom()).toBe(false);
  });

  it('holds to maxRunning, and a ttl to the settings', async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' });
    await l.create(task('sbt-a'), work());
    await l.create(task('sbt-b'), work());
    expect(l.hasRoom()).toBe(false);
    expect(l.ttlFor(undefined)).toBe(DEFAULT_GATEWAY.tasks.ttlMs);
    expect(l.ttlFor(null)).toBe(DEFAULT_GATEWAY.tasks.ttlMs);
    expect(l.ttlFor(-5)).toBe(DEFAULT_GATEWAY.tasks.ttlMs);
    expect(l.ttlFor(10)).toBe(1000);
    expect(l.ttlFor(5000.4)).toBe(5000);
    expect(l.ttlFor(Number.MAX_SAFE_INTEGER)).toBe(DEFAULT_GATEWAY.tasks.maxTtlMs);
  });

  it('renews the leases of its running tasks', async () => {
    const s = await store();
    const l = ledger(s, { host: 'box', pid: 200, nonce: 'a' }, { leaseMs: 3000 });
    await l.create(task('sbt-lease'), work());
    const first = (await s.tasks.get('sbt-lease'))?.leaseUntil?.getTime() ?? 0;
    await eventually(
      async () => (await s.tasks.get('sbt-lease'))?.leaseUntil?.getTime() ?? 0,
      (until) => until > first,
      { what: 'renewed the lease', timeoutMs: 10_000, everyMs: 100 },
    );
  });
});
