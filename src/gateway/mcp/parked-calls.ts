import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type CreateMessageResult,
  type ElicitInputParams,
  type InputRequest,
  type InputRequests,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type {
  ElicitationParams,
  ElicitationResponse,
  Roots,
  SamplingParams,
} from '../../client/server-requests.js';
import type { Caller } from '../../host/caller-relay.js';

/**
 * Parking: how a 2026-07-28 client answers a 2025-era upstream. Such an upstream asks for
 * input mid-call (elicitation/create, sampling/createMessage, roots/list) and waits; a
 * 2026-07-28 client cannot be asked mid-call, only given an `input_required` result. So the
 * upstream's request is parked: the call keeps running here, the client gets the request as
 * an input request, and its retry resumes the parked call with the answer.
 *
 * Parks live in this process's memory. With several gateway instances, the rounds of a call
 * to a 2025-era upstream must come back to the instance that parked it (sticky routing); any
 * other instance answers that the call must be started again.
 */

/** How long a parked call waits for its client to come back before it is cancelled. */
export const PARK_TTL_MS = 5 * 60_000;
/** How many calls may wait for their clients at once, per process. */
export const MAX_PARKED_CALLS = 1000;

type Kind = 'elicit' | 'sample' | 'roots';

interface Pending {
  readonly kind: Kind;
  readonly request: InputRequest;
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

/** What one round of a parked call ends with: the call's result, or the requests it waits on. */
export type ParkedRound = { readonly done: CallToolResult } | { readonly asks: InputRequests };

/** What the calling client declared it can answer (its per-request capabilities). */
export interface Answerable {
  readonly elicit: boolean;
  readonly sample: boolean;
  readonly roots: boolean;
}

const METHOD: Record<Kind, string> = {
  elicit: 'elicitation/create',
  sample: 'sampling/createMessage',
  roots: 'roots/list',
};

/**
 * One upstream call whose server→client requests park until the client's next round. The
 * call runs under this object's abort signal (not a request's: it outlives the round that
 * started it); each round reads the call's result or the requests it is waiting on.
 */
export class ParkedCall {
  readonly id = randomUUID();
  /** The request of the round being served: progress and log lines of the call go to it. */
  context: ServerContext | undefined;
  /** Admitted to the registry before: its later requests park without a new room check. */
  admitted = false;
  private readonly controller = new AbortController();
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;
  private wake: (() => void) | undefined;
  private outcome: Promise<CallToolResult> | undefined;

  /** `refusal` says why no call may park now (the registry is full), or `undefined`. */
  constructor(private readonly refusal: () => string | undefined) {}

  /** How many of the call's requests wait for an answer now. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Starts the upstream call under this call's signal. */
  start(run: (signal: AbortSignal) => Promise<CallToolResult>): void {
    this.outcome = run(this.controller.signal);
    // Read by `next()`; a client that never comes back leaves it unread, which must not crash.
    this.outcome.catch(() => undefined);
  }

  /** The upstream call's answerer: only what the client declared is parked; the rest keeps its default. */
  caller(can: Answerable): Caller | undefined {
    if (!can.elicit && !can.sample && !can.roots) return undefined;
    return {
      ...(can.elicit && {
        elicit: (params: ElicitationParams, signal: AbortSignal) =>
          this.park<ElicitationResponse>('elicit', elicitRequest(params), signal),
      }),
      ...(can.sample && {
        sample: (params: SamplingParams, signal: AbortSignal) =>
          this.park<CreateMessageResult>('sample', inputRequired.createMessage(params), signal),
      }),
      ...(can.roots && {
        roots: (signal: AbortSignal) => this.park<Roots>('roots', inputRequired.listRoots(), signal),
      }),
    };
  }

  /**
   * Hands the client's answers to the parked requests they name. All are checked before any is
   * handed on: an answer of the wrong kind is refused (-32602) and nothing changes.
   */
  answer(responses: Record<string, unknown> | undefined): void {
    const answers: [Pending, unknown][] = [];
    for (const [key, pending] of this.pending) {
      const view = inputResponse(responses, key);
      if (view.kind === 'missing') continue;
      const value =
        pending.kind === 'elicit' && view.kind === 'elicit'
          ? { action: view.action, ...(view.content !== undefined && { content: view.content }) }
          : pending.kind === 'sample' && view.kind === 'sampling'
            ? view.result
            : pending.kind === 'roots' && view.kind === 'roots'
              ? view.roots
              : undefined;
      if (value === undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `inputResponses["${key}"] does not answer the ${METHOD[pending.kind]} request it stands for; send that request's result.`,
        );
      }
      answers.push([pending, value]);
    }
    for (const [pending, value] of answers) pending.resolve(value);
  }

  /**
   * The call's result if it finishes first, else the requests it waits on: unanswered ones at
   * once, or the next ones it parks (requests sent together come back in one round).
   */
  async next(): Promise<ParkedRound> {
    const outcome = this.outcome;
    if (outcome === undefined) throw new Error('The parked call was never started.');
    while (this.pending.size === 0) {
      const parked = new Promise<'parked'>((resolve) => {
        this.wake = () => resolve('parked');
      });
      const first = await Promise.race([outcome.then((done) => ({ done })), parked]);
      this.wake = undefined;
      if (first !== 'parked') return first;
      // Requests an upstream sends together arrive one message after another: let them all park.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { asks: Object.fromEntries([...this.pending].map(([key, p]) => [key, p.request])) };
  }

  /** Cancels the upstream call and refuses its parked requests with `reason`. */
  cancel(reason: string): void {
    const error = new Error(reason);
    this.controller.abort(error);
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }

  private park<T>(kind: Kind, request: InputRequest, signal: AbortSignal): Promise<T> {
    const refused = this.admitted ? undefined : this.refusal();
    if (refused !== undefined) return Promise.reject(new Error(refused));
    if (this.controller.signal.aborted) return Promise.reject(new Error('The call was cancelled.'));
    this.sequence += 1;
    const key = `${kind}-${this.sequence}`;
    return new Promise<T>((resolve, reject) => {
      const settle = () => {
        signal.removeEventListener('abort', withdrawn);
        this.pending.delete(key);
      };
      // The upstream withdrew its request (cancelled it, or its connection went away).
      const withdrawn = () => {
        settle();
        reject(
          signal.reason instanceof Error ? signal.reason : new Error('The server withdrew its request.'),
        );
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      this.pending.set(key, {
        kind,
        request,
        resolve: (answer) => {
          settle();
          resolve(answer as T);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.wake?.();
    });
  }
}

function elicitRequest(params: ElicitationParams): InputRequest {
  if (params.mode === 'url') return inputRequired.elicitUrl({ message: params.message, url: params.url });
  return inputRequired.elicit(params as ElicitInputParams);
}

/** Bounds of the registry; `now` is injectable so expiry can be tested without waiting. */
export interface ParkedCallsOptions {
  readonly ttlMs?: number;
  readonly max?: number;
  readonly now?: () => number;
}

interface Parked {
  readonly call: ParkedCall;
  readonly principal: string;
  readonly deadline: number;
  readonly timer: NodeJS.Timeout;
}

/**
 * The calls waiting for their clients, by park id. A call is here between rounds only (a
 * round being served holds it); it expires `ttlMs` after it parked (cancelled upstream, its
 * requests refused), checked on every use and by a timer that does not keep the process up,
 * so a client that never comes back leaks nothing. At `max`, expired calls go first; if none
 * has, no new call may park (its upstream's request is declined with the reason).
 */
export class ParkedCalls {
  private readonly entries = new Map<string, Parked>();
  private readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(options: ParkedCallsOptions = {}) {
    this.ttlMs = options.ttlMs ?? PARK_TTL_MS;
    this.max = options.max ?? MAX_PARKED_CALLS;
    this.now = options.now ?? (() => Date.now());
  }

  /** How many calls wait for their clients now. */
  get size(): number {
    return this.entries.size;
  }

  /** A new call that may park its upstream's requests here. */
  open(): ParkedCall {
    return new ParkedCall(() => this.refusal());
  }

  /** Keeps `call` for `principal` until its client comes back, or until it expires. */
  admit(call: ParkedCall, principal: string): void {
    this.drop(call.id);
    call.admitted = true;
    const timer = setTimeout(() => this.sweep(), this.ttlMs + 1);
    timer.unref();
    this.entries.set(call.id, { call, principal, deadline: this.now() + this.ttlMs, timer });
  }

  /** The call parked under `id` for `principal`, taken out to serve a round; `undefined` if unknown or expired. */
  take(id: string, principal: string): ParkedCall | undefined {
    this.sweep();
    const entry = this.entries.get(id);
    if (entry === undefined || entry.principal !== principal) return undefined;
    this.drop(id);
    return entry.call;
  }

  /** Cancels every expired call; returns how many. */
  sweep(): number {
    const now = this.now();
    let expired = 0;
    for (const [id, entry] of this.entries) {
      if (entry.deadline > now) continue;
      this.drop(id);
      entry.call.cancel(
        `No answer came from the client within ${Math.round(this.ttlMs / 1000)} s; the gateway cancelled the call.`,
      );
      expired += 1;
    }
    return expired;
  }

  /** Cancels every parked call (the gateway is shutting down). */
  close(): void {
    for (const [id, entry] of this.entries) {
      this.drop(id);
      entry.call.cancel('The gateway shut down; the call was cancelled.');
    }
  }

  private refusal(): string | undefined {
    if (this.entries.size < this.max) return undefined;
    this.sweep();
    if (this.entries.size < this.max) return undefined;
    return `The gateway already holds ${this.max} calls waiting for their clients' answers, its limit; this request was declined. Try the call again later.`;
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    clearTimeout(entry.timer);
    this.entries.delete(id);
  }
}
