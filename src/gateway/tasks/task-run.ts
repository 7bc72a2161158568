import { setTimeout as delay } from 'node:timers/promises';
import {
  type CallToolResult,
  type InputRequests,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { describeError } from '../../core/errors.js';
import type { Caller } from '../../host/caller-relay.js';
import type { StoredTask, TaskChange } from '../../storage/ports.js';
import { type Answerable, ParkedCall } from '../mcp/parked-calls.js';
import type { LocalTask, TaskLedger } from './task-ledger.js';
import { newTaskId } from './task-shapes.js';

/**
 * A call the gateway runs as a task: started in this process, answered inline when it ends
 * within `afterMs`, otherwise recorded as a task (its client gets the task and polls) and
 * followed to its end, each change written to the ledger. The call's questions (the upstream
 * asks for elicitation, sampling, roots) go where the client can answer them: a 2026-07-28
 * client finds them in the task (`input_required`, `inputRequests`) and answers with
 * `tasks/update` (the questions are parked meanwhile: parked-calls.ts); a 2025 session is
 * asked on its session while the task says `input_required`.
 */

/** Who answers the call's questions, and how. */
export type TaskAsker =
  | {
      /** A 2026-07-28 client: questions wait in the task for its `tasks/update`. */
      readonly kind: 'parked';
      readonly can: Answerable;
    }
  | {
      /** A 2025 session: asked live; `asking`/`answered` mark the task `input_required` meanwhile. */
      readonly kind: 'live';
      readonly caller: (marks: {
        readonly taskId: string;
        asking(): void;
        answered(): void;
      }) => Caller | undefined;
    };

export interface TaskRunSpec {
  readonly ledger: TaskLedger;
  readonly principal: string;
  readonly server: string;
  /** The tool as the client named it. */
  readonly tool: string;
  readonly ttlMs: number;
  readonly asker: TaskAsker;
  /** The upstream call, under `signal`, with `caller` answering its questions. */
  readonly run: (signal: AbortSignal, caller: Caller | undefined) => Promise<CallToolResult>;
}

/** What the client is answered: the call's own result, or the task it became. */
export type TaskStart = { readonly result: CallToolResult } | { readonly task: StoredTask };

/**
 * Runs `spec`'s call; a task at once when `afterMs` is 0 (recorded before the call starts),
 * else when it is still running after `afterMs` or asks a question first. `signal` is the
 * client's request: its abort before the call became a task cancels the call.
 */
export async function runAsTask(
  spec: TaskRunSpec,
  options: { readonly afterMs: number; readonly signal: AbortSignal },
): Promise<TaskStart> {
  const run = new TaskRun(spec);
  if (options.afterMs <= 0) {
    const task = await run.record(undefined);
    void run.follow(run.start());
    return { task };
  }
  const first = run.start();
  const early = await firstSign(first, options.afterMs, options.signal);
  if ('round' in early && 'done' in early.round) return { result: early.round.done };
  if ('error' in early) throw early.error;
  if ('aborted' in early) {
    run.abort('The client cancelled the call.');
    throw new ProtocolError(ProtocolErrorCode.InternalError, 'The client cancelled the call.');
  }
  let task: StoredTask;
  try {
    task = await run.record('round' in early ? early.round : undefined);
  } catch (error) {
    run.abort('The gateway could not record the task.');
    throw error;
  }
  void run.follow(first);
  return { task };
}

type Round = { readonly done: CallToolResult } | { readonly asks: InputRequests };
type Sign =
  | { readonly round: Round }
  | { readonly error: unknown }
  | { readonly late: true }
  | { readonly aborted: true };

/** Whichever comes first: the call's first round, `afterMs`, or the client going away. */
async function firstSign(first: Promise<Round>, afterMs: number, signal: AbortSignal): Promise<Sign> {
  if (signal.aborted) return { aborted: true };
  const timer = new AbortController();
  const onAbort = () => timer.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race<Sign>([
      first.then(
        (round) => ({ round }),
        (error: unknown) => ({ error }),
      ),
      delay(afterMs, undefined, { signal: timer.signal }).then(
        () => ({ late: true }) as const,
        () => (signal.aborted ? ({ aborted: true } as const) : ({ late: true } as const)),
      ),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    timer.abort();
  }
}

class TaskRun implements LocalTask {
  readonly id = newTaskId();
  private readonly controller = new AbortController();
  private parked: ParkedCall | undefined;
  private recorded = false;
  /** Resolves the wait for the client's answers. */
  private wake: (() => void) | undefined;
  /** Settles when the call has ended, however. */
  private settled: Promise<void> = Promise.resolve();
  /** The last change written (see `write`). */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly spec: TaskRunSpec) {}

  /** Starts the call; resolves with its first round. */
  start(): Promise<Round> {
    const { asker, run } = this.spec;
    if (asker.kind === 'parked') {
      const parked = new ParkedCall(() => undefined);
      this.parked = parked;
      parked.start((signal) => {
        const outcome = run(signal, parked.caller(asker.can));
        this.settled = outcome.then(ignore, ignore);
        return outcome;
      });
      return parked.next();
    }
    const caller = asker.caller({
      taskId: this.id,
      asking: () => void this.write({ status: 'input_required' }),
      answered: () => void this.write({ status: 'working' }),
    });
    return run(this.controller.signal, caller).then((done) => ({ done }));
  }

  /** Records the task (waiting on `round`'s questions, when it has asked some). */
  async record(round: Round | undefined): Promise<StoredTask> {
    const asks = round && 'asks' in round ? round.asks : undefined;
    const task = await this.spec.ledger.create(
      {
        id: this.id,
        principal: this.spec.principal,
        server: this.spec.server,
        tool: this.spec.tool,
        kind: 'run',
        status: asks ? 'input_required' : 'working',
        ...(asks && { outcome: { inputRequests: asks } }),
        ttlMs: this.spec.ttlMs,
      },
      this,
    );
    this.recorded = true;
    return task;
  }

  /** Follows the call from `next` to its end, writing each change. */
  async follow(next: Promise<Round>): Promise<void> {
    let round = next;
    try {
      for (;;) {
        const current = await round;
        if ('done' in current) {
          await this.finish({ status: 'completed', statusMessage: null, outcome: { result: current.done } });
          return;
        }
        await this.write({ status: 'input_required', outcome: { inputRequests: current.asks } });
        // Until the client has answered every question, or the call ends without the answers.
        await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), this.settled]);
        this.wake = undefined;
        await this.write({ status: 'working', outcome: null });
        round = this.parked!.next();
      }
    } catch (error) {
      await this.finish(failed(error));
    }
  }

  abort(reason: string): void {
    if (this.parked) this.parked.cancel(reason);
    else this.controller.abort(new Error(reason));
    this.wake?.();
  }

  answer(responses: Record<string, unknown>): void {
    const parked = this.parked;
    if (parked === undefined || parked.waiting === 0) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${this.id} is not waiting for input; read it with tasks/get.`,
      );
    }
    parked.answer(responses);
    if (parked.waiting === 0) {
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    }
  }

  /** Writes one change after the ones before it: a pool of connections must not reorder them. */
  private write(change: TaskChange): Promise<void> {
    if (!this.recorded) return Promise.resolve();
    this.writes = this.writes.then(async () => {
      await this.spec.ledger.write(this.id, change).catch(() => false);
    });
    return this.writes;
  }

  private async finish(change: TaskChange): Promise<void> {
    await this.write(change);
    this.spec.ledger.release(this.id);
  }
}

function ignore(): void {}

/** The task's failure: the call's JSON-RPC error as the client would have had it. */
function failed(error: unknown): TaskChange {
  const rpc =
    error instanceof ProtocolError
      ? { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) }
      : { code: ProtocolErrorCode.InternalError, message: describeError(error) };
  return { status: 'failed', statusMessage: rpc.message, outcome: { error: rpc } };
}
