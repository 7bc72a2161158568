import { EventEmitter } from 'node:events';
import type { GatewayTaskSettings } from '../../core/config/gateway-config.js';
import { describeError } from '../../core/errors.js';
import { isProcessAlive } from '../../core/files/process-alive.js';
import type { NewTask, StoredTask, TaskChange, TaskRepository } from '../../storage/ports.js';
import { enter, leave, type Owner, ownerGone, ownerId, thisProcess } from './task-owner.js';
import { isFinished, isTaskIdShaped, type TaskView } from './task-shapes.js';

/**
 * The gateway's tasks, kept in the store so that every gateway process on it can answer a
 * poll and a restart loses nothing that was written: the tasks that relay an upstream's own
 * task (the upstream keeps the work) and the calls the gateway runs as tasks itself, each in
 * the process that started it (its owner). That process keeps the leases of its running tasks
 * fresh; a reader that finds a running task whose owner is gone (its lease ran out, or its
 * process is not there any more) marks it failed with the reason, so a poll after a crash
 * gets the truth and never "working" forever. Expired tasks are deleted by a sweep, and read
 * as gone before it.
 */

/** What one running task of this process answers to. */
export interface LocalTask {
  /** Stops the work (cancelled by its client, expired, or the gateway shutting down). */
  abort(reason: string): void;
  /** Hands the client's answers to the questions the task waits on (2026-07-28 `tasks/update`). */
  answer?(responses: Record<string, unknown>): void;
}

export interface TaskLedgerOptions {
  readonly repository: TaskRepository;
  readonly settings: GatewayTaskSettings;
  /** How long a lease lasts; renewed every third of it. Default 30 s. */
  readonly leaseMs?: number;
  /** How often expired tasks are deleted. Default a minute. */
  readonly sweepMs?: number;
  /** Told of failed store writes in the background (the work goes on). */
  readonly onError?: (error: Error) => void;
  /** Injectable for tests. */
  readonly now?: () => Date;
  readonly alive?: (pid: number) => boolean;
  readonly self?: Owner;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_SWEEP_MS = 60_000;

export class TaskLedger {
  readonly owner: string;
  readonly view: TaskView;
  readonly settings: GatewayTaskSettings;
  private readonly repository: TaskRepository;
  private readonly leaseMs: number;
  private readonly self: Owner;
  private readonly now: () => Date;
  private readonly alive: (pid: number) => boolean;
  private readonly onError: (error: Error) => void;
  private readonly local = new Map<string, LocalTask>();
  private readonly changes = new EventEmitter();
  private readonly timers: NodeJS.Timeout[];
  private closed = false;

  constructor(options: TaskLedgerOptions) {
    this.repository = options.repository;
    this.settings = options.settings;
    this.view = { pollIntervalMs: options.settings.pollIntervalMs };
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.self = options.self ?? thisProcess();
    this.owner = ownerId(this.self);
    enter(this.self);
    this.now = options.now ?? (() => new Date());
    this.alive = options.alive ?? isProcessAlive;
    this.onError = options.onError ?? (() => undefined);
    this.changes.setMaxListeners(0);
    const renew = setInterval(() => void this.renew(), Math.max(1000, Math.floor(this.leaseMs / 3)));
    const sweep = setInterval(() => void this.sweep(), options.sweepMs ?? DEFAULT_SWEEP_MS);
    // Background upkeep never keeps a process up.
    renew.unref();
    sweep.unref();
    this.timers = [renew, sweep];
  }

  /** How many tasks this process runs now. */
  get running(): number {
    return this.local.size;
  }

  /** Whether this process may start another task (`maxRunning`). */
  hasRoom(): boolean {
    return !this.closed && this.local.size < this.settings.maxRunning;
  }

  /** The ttl a task gets: the client's ask cut to `maxTtlMs`, else the default. */
  ttlFor(requested: number | null | undefined): number {
    if (requested === undefined || requested === null || !Number.isFinite(requested) || requested <= 0) {
      return this.settings.ttlMs;
    }
    return Math.min(Math.max(1000, Math.round(requested)), this.settings.maxTtlMs);
  }

  /** Records a task this process runs (`work`) or relays; returns it as stored. */
  async create(task: Omit<NewTask, 'owner' | 'leaseMs'>, work?: LocalTask): Promise<StoredTask> {
    const stored = await this.repository.create({
      ...task,
      ...(work && { owner: this.owner, leaseMs: this.leaseMs }),
    });
    if (work) this.local.set(task.id, work);
    return stored;
  }

  /**
   * The task `id` as its principal sees it: undefined when there is none, it expired, or it
   * is another principal's (the same answer, so an id tells an outsider nothing). A running
   * task whose owner is gone is marked failed first.
   */
  async read(id: string, principal: string): Promise<StoredTask | undefined> {
    if (!isTaskIdShaped(id)) return undefined;
    const task = await this.repository.get(id);
    if (task === undefined || task.principal !== principal) return undefined;
    if (task.kind !== 'run' || isFinished(task.status) || task.owner === undefined) return task;
    const gone = this.whyGone(task);
    if (gone === undefined) return task;
    await this.repository.update(
      id,
      {
        status: 'failed',
        statusMessage: gone,
        outcome: { error: { code: -32603, message: gone, data: { code: 'TASK_WORKER_LOST' } } },
      },
      { owner: task.owner },
    );
    return (await this.repository.get(id)) ?? task;
  }

  /** Changes a task; for one of this process's, only while it is still its own. */
  async write(id: string, change: TaskChange): Promise<boolean> {
    const mine = this.local.has(id);
    const changed = await this.repository.update(id, change, mine ? { owner: this.owner } : {});
    if (changed) this.changes.emit(id);
    return changed;
  }

  /** This process's running task `id`, if it runs here. */
  localTask(id: string): LocalTask | undefined {
    return this.local.get(id);
  }

  /** Forgets a finished task of this process. */
  release(id: string): void {
    this.local.delete(id);
    this.changes.emit(id);
  }

  /**
   * Resolves when task `id` changes in this process, or after `ms` (a change made by another
   * process is seen by the next read), or when `signal` aborts.
   */
  changed(id: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.changes.off(id, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.changes.once(id, done);
      signal.addEventListener('abort', done, { once: true });
      if (signal.aborted) done();
    });
  }

  /** Stops every task of this process, marking each failed with the reason; stops the upkeep. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    leave(this.self);
    for (const timer of this.timers) clearInterval(timer);
    const reason = 'The gateway shut down before the task finished; call the tool again.';
    const stopping = [...this.local.entries()].map(async ([id, work]) => {
      work.abort(reason);
      await this.repository
        .update(
          id,
          { status: 'failed', statusMessage: reason, outcome: { error: { code: -32603, message: reason } } },
          { owner: this.owner },
        )
        .catch((error: unknown) => this.onError(asError(error)));
    });
    await Promise.all(stopping);
    this.local.clear();
  }

  private whyGone(task: StoredTask): string | undefined {
    const tail = 'its result is lost; call the tool again.';
    if (task.owner === this.owner) {
      // Ours, but not running here: its work ended without writing how.
      return this.local.has(task.id) ? undefined : `The task's work ended without a result; ${tail}`;
    }
    const gone = ownerGone(task.owner!, task.leaseUntil, {
      self: this.self,
      now: this.now(),
      alive: this.alive,
    });
    return gone && `The gateway process that ran this task ${gone} before the task finished; ${tail}`;
  }

  private async renew(): Promise<void> {
    if (this.local.size === 0) return;
    try {
      await this.repository.renew(this.owner, this.leaseMs);
    } catch (error) {
      this.onError(asError(error));
    }
  }

  /**
   * Deletes expired tasks, and stops this process's work whose task expired or was finished
   * by another process (cancelled through another gateway, or found dead by it).
   */
  private async sweep(): Promise<void> {
    try {
      await this.repository.prune();
      for (const [id, work] of [...this.local]) {
        const task = await this.repository.get(id);
        if (task !== undefined && !isFinished(task.status) && task.owner === this.owner) continue;
        work.abort(task === undefined ? 'The task expired.' : `The task is ${task.status}.`);
        this.local.delete(id);
      }
    } catch (error) {
      this.onError(asError(error));
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(describeError(error));
}
