import { randomUUID } from 'node:crypto';
import { TypedEmitter } from '../../client/typed-emitter.js';
import { describeError, SwitchboardError } from '../../core/errors.js';
import { maskSecretValues, previewArguments } from '../../policy/masking.js';
import {
  checkFormContent,
  type ElicitationContent,
  type ElicitationFormSchema,
  secretFieldNames,
} from './elicitation-form.js';

/**
 * The Inbox: one queue of everything that waits for a person — approvals of tool calls that
 * policy said `ask` for, and elicitations (MCP "elicitation/create", form and URL mode) that
 * servers send. Front-ends (the terminal prompt, later the HTTP API and dashboard) watch
 * `added`/`resolved`, read `list()`, and answer with `resolve()`. Whoever called `ask()`
 * gets the answer; an item nobody answers by its deadline is declined.
 *
 * Privacy: the content of an elicitation answer goes to the `ask()` caller only — to the
 * server that asked. It is never put on an item or an event, never kept after the answer,
 * never logged, and error messages about it never repeat a value.
 */

export type InboxKind = 'approval' | 'elicitation';
export type InboxAction = 'accept' | 'decline' | 'cancel';
/** Why an item ended without an accept: a person said so, time ran out, the asker gave up, or the Inbox closed. */
export type InboxEndReason = 'user' | 'timeout' | 'aborted' | 'closed';

/** A tool call that policy wants a person to approve. */
export interface ApprovalRequest {
  readonly kind: 'approval';
  readonly server: string;
  readonly tool: string;
  readonly session?: string;
  /** The call's arguments: shown masked (see `previewArguments`), never kept whole. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** The tool's input schema, which marks secret fields (`format: password`, `writeOnly`). */
  readonly inputSchema?: unknown;
  /** Why policy asks, in words. */
  readonly reason?: string;
}

/** A server's elicitation: a form (`requestedSchema`) or a page to open (`url`). */
export interface ElicitationRequest {
  readonly kind: 'elicitation';
  readonly server: string;
  readonly tool?: string;
  readonly session?: string;
  readonly message: string;
  readonly requestedSchema?: ElicitationFormSchema;
  readonly url?: string;
  readonly elicitationId?: string;
}

export type InboxRequest = ApprovalRequest | ElicitationRequest;

/** One pending item, as front-ends see it. Frozen; holds no answer. */
export interface InboxItem {
  readonly id: string;
  readonly kind: InboxKind;
  readonly server: string;
  readonly tool?: string;
  readonly session?: string;
  /** Approval: the masked argument preview. Elicitation: the server's message. */
  readonly preview: string;
  readonly reason?: string;
  /** Elicitations only. */
  readonly mode?: 'form' | 'url';
  readonly requestedSchema?: ElicitationFormSchema;
  /** Form fields a front-end must read without echo and never display. */
  readonly secretFields?: readonly string[];
  readonly url?: string;
  readonly elicitationId?: string;
  readonly createdAt: Date;
  readonly deadline: Date;
}

/** What `ask()` resolves to. `content` only for an accepted form; `always` only for approvals. */
export type InboxAnswer =
  | { readonly action: 'accept'; readonly content?: ElicitationContent; readonly always: boolean }
  | { readonly action: 'decline' | 'cancel'; readonly reason: InboxEndReason };

/** How an item ended, as events tell it: the answer without any content. */
export type InboxOutcome =
  | { readonly action: 'accept'; readonly always: boolean }
  | { readonly action: 'decline' | 'cancel'; readonly reason: InboxEndReason };

export type InboxEvents = {
  /** A new item. Listening to it makes one a front-end: approvals then wait for an answer. */
  added: [item: InboxItem];
  /** The same moment as `added`, for observers that answer nothing (not counted as front-ends). */
  queued: [item: InboxItem];
  resolved: [item: InboxItem, outcome: InboxOutcome];
};

export interface InboxOptions {
  /** How long an item waits before it is declined (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Pending items beyond which `ask()` fails at once (default 1,000). */
  readonly maxPending?: number;
  /** Length of an approval's argument preview (default 500 characters). */
  readonly previewChars?: number;
}

export interface InboxFilter {
  readonly kind?: InboxKind;
  readonly server?: string;
  readonly session?: string;
}

export interface AskOptions {
  readonly timeoutMs?: number;
  /** Aborting cancels the item (answer `cancel`, reason `aborted`) and removes it. */
  readonly signal?: AbortSignal;
}

export interface ResolveOptions {
  /** Approvals: allow this tool for the rest of the session. */
  readonly always?: boolean;
}

export const DEFAULT_INBOX_TIMEOUT_MS = 5 * 60_000;
export const DEFAULT_MAX_PENDING = 1_000;
/** setTimeout's ceiling (2^31 − 1 ms, about 24.8 days); beyond it Node fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** A form without fields: the server only wants a yes or no. */
const EMPTY_FORM: ElicitationFormSchema = { type: 'object', properties: {} };

interface Pending {
  readonly item: InboxItem;
  readonly settle: (answer: InboxAnswer) => void;
}

/** An item answered (or ended) lately: a second answer is told it came too late, and how it went. */
interface Ended {
  readonly item: InboxItem;
  readonly outcome: InboxOutcome;
  readonly at: number;
}

/** How many ended items are remembered, and for how long (see `ended`). */
const ENDED_KEPT = 500;
const ENDED_TTL_MS = 10 * 60_000;

function checkTimeout(ms: number, what: string): number {
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new SwitchboardError('INVALID_ARGUMENT', `${what} must be a positive number of milliseconds.`);
  }
  return Math.min(ms, MAX_TIMER_MS);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The refusal of an answer to an item that has ended: who was first does not matter, only that
 * this answer changed nothing, and how the item went.
 */
export function alreadyAnswered(id: string, outcome: InboxOutcome): SwitchboardError {
  const how =
    outcome.action === 'accept'
      ? 'accepted'
      : outcome.reason === 'user'
        ? `${outcome.action === 'decline' ? 'declined' : 'cancelled'} by a person`
        : outcome.reason === 'timeout'
          ? 'declined at its deadline'
          : outcome.reason === 'aborted'
            ? 'cancelled: the call gave up waiting'
            : 'declined: the inbox closed';
  return new SwitchboardError(
    'ALREADY_ANSWERED',
    `Inbox item "${id}" was already ${how}; this answer changed nothing. List the inbox for the items still waiting.`,
    { details: { id, action: outcome.action } },
  );
}

function outcomeOf(answer: InboxAnswer): InboxOutcome {
  return answer.action === 'accept'
    ? { action: 'accept', always: answer.always }
    : { action: answer.action, reason: answer.reason };
}

/** See the module comment. Events: `added` (item), `resolved` (item, outcome without content). */
export class Inbox extends TypedEmitter<InboxEvents> {
  private readonly pending = new Map<string, Pending>();
  private readonly recent = new Map<string, Ended>();
  /** Front-ends of other processes sharing this Inbox's items (see `shareFrontEnds`). */
  private elsewhere: () => boolean = () => false;
  private frontEndsChanged: ((count: number) => void) | undefined;
  private readonly timeoutMs: number;
  private readonly maxPending: number;
  private readonly previewChars: number;
  private closed = false;

  constructor(options: InboxOptions = {}) {
    super();
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_INBOX_TIMEOUT_MS, 'The inbox timeout');
    this.maxPending = Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING);
    this.previewChars = options.previewChars ?? 500;
  }

  /** How many items wait. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Whether a person can answer an item: a front-end listens for `added` here, or one of
   * another process does (gateway replicas, see `shareFrontEnds`). Without one, approvals and
   * elicitations are declined at once rather than wait for nobody (inbox-adapters.ts).
   */
  hasFrontEnd(): boolean {
    return this.listenerCount('added') > 0 || this.elsewhere();
  }

  /**
   * Links this Inbox to the front-ends of other processes (gateway replicas sharing their
   * items, docs/replicas.md): `elsewhere` says whether any is attached there, `changed` is told
   * how many are attached here whenever that changes.
   */
  shareFrontEnds(options: {
    readonly elsewhere: () => boolean;
    readonly changed: (count: number) => void;
  }): void {
    this.elsewhere = options.elsewhere;
    this.frontEndsChanged = options.changed;
  }

  override on<K extends keyof InboxEvents & string>(
    event: K,
    listener: (...args: InboxEvents[K]) => void,
  ): this {
    super.on(event, listener);
    if (event === 'added') this.frontEndsChanged?.(this.listenerCount('added'));
    return this;
  }

  override off<K extends keyof InboxEvents & string>(
    event: K,
    listener: (...args: InboxEvents[K]) => void,
  ): this {
    super.off(event, listener);
    if (event === 'added') this.frontEndsChanged?.(this.listenerCount('added'));
    return this;
  }

  /**
   * Queues an item and waits for its answer: `resolve()`, the deadline (→ decline, reason
   * `timeout`), the signal (→ cancel, reason `aborted`) or `close()` (→ decline, `closed`).
   * Fails at once when `maxPending` items already wait, so a flood cannot exhaust memory.
   */
  async ask(request: InboxRequest, options: AskOptions = {}): Promise<InboxAnswer> {
    if (this.closed) return { action: 'decline', reason: 'closed' };
    if (options.signal?.aborted) return { action: 'cancel', reason: 'aborted' };
    if (this.pending.size >= this.maxPending) {
      throw new SwitchboardError(
        'INBOX_FULL',
        `The inbox already holds ${this.pending.size} unanswered items, so this ${request.kind} from ` +
          `"${request.server}" was refused. Answer or decline the pending items, or raise maxPending.`,
        { details: { server: request.server, reason: 'inbox_full', maxPending: this.maxPending } },
      );
    }
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.timeoutMs, 'The timeout of an inbox item');
    const item = this.createItem(request, timeoutMs);
    const { signal } = options;
    return new Promise<InboxAnswer>((resolveAnswer) => {
      const onAbort = () => this.finish(item.id, { action: 'cancel', reason: 'aborted' });
      const timer = setTimeout(
        () => this.finish(item.id, { action: 'decline', reason: 'timeout' }),
        timeoutMs,
      );
      // A waiting person must not keep the process alive on their own.
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(item.id, {
        item,
        settle: (answer) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolveAnswer(answer);
        },
      });
      this.notify('added', item);
      this.notify('queued', item);
    });
  }

  /** The pending items, oldest first, optionally only of one kind, server or session. */
  list(filter: InboxFilter = {}): readonly InboxItem[] {
    const items: InboxItem[] = [];
    for (const { item } of this.pending.values()) {
      if (filter.kind !== undefined && item.kind !== filter.kind) continue;
      if (filter.server !== undefined && item.server !== filter.server) continue;
      if (filter.session !== undefined && item.session !== filter.session) continue;
      items.push(item);
    }
    return Object.freeze(items);
  }

  /** The pending item with this id, if it still waits. */
  get(id: string): InboxItem | undefined {
    return this.pending.get(id)?.item;
  }

  /**
   * Answers a pending item. Returns false when no such item waits (answered, expired, or never
   * there). Accepting a form checks `content` against its schema first and throws
   * INVALID_ARGUMENT, leaving the item pending, when it does not fit. `content` is used only
   * when accepting a form; `always` only when accepting an approval.
   */
  resolve(
    id: string,
    action: InboxAction,
    content?: Readonly<Record<string, unknown>>,
    options: ResolveOptions = {},
  ): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    return this.finish(id, this.answerFor(entry.item, action, content, options));
  }

  /**
   * An item that ended lately (answered, expired, cancelled; the last 500, for 10 minutes),
   * and how: so a second answer can be told it came too late rather than that nothing was there.
   */
  ended(id: string): { readonly item: InboxItem; readonly outcome: InboxOutcome } | undefined {
    const ended = this.recent.get(id);
    if (ended === undefined || Date.now() - ended.at > ENDED_TTL_MS) return undefined;
    return ended;
  }

  /**
   * `resolve()` for API callers: throws ALREADY_ANSWERED for an item that ended lately (see
   * `ended`), NOT_FOUND for one never seen, instead of returning false.
   */
  resolveOrThrow(
    id: string,
    action: InboxAction,
    content?: Readonly<Record<string, unknown>>,
    options: ResolveOptions = {},
  ): void {
    if (!this.resolve(id, action, content, options)) {
      const ended = this.ended(id);
      if (ended) throw alreadyAnswered(id, ended.outcome);
      throw new SwitchboardError(
        'NOT_FOUND',
        `No inbox item "${id}" is waiting: it was answered, expired or never existed. List the inbox for the pending items.`,
        { details: { id } },
      );
    }
  }

  /** Declines everything pending (reason `closed`); later `ask()` calls are declined at once. */
  close(): void {
    this.closed = true;
    for (const id of [...this.pending.keys()]) this.finish(id, { action: 'decline', reason: 'closed' });
  }

  private answerFor(
    item: InboxItem,
    action: InboxAction,
    content: Readonly<Record<string, unknown>> | undefined,
    options: ResolveOptions,
  ): InboxAnswer {
    if (action === 'decline' || action === 'cancel') return { action, reason: 'user' };
    if (action !== 'accept') {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `"${String(action)}" is not an inbox answer; use accept, decline or cancel.`,
      );
    }
    if (item.kind === 'approval') return { action, always: options.always === true };
    if (item.mode === 'url') return { action, always: false };
    return { action, content: checkFormContent(item.requestedSchema, content), always: false };
  }

  private finish(id: string, answer: InboxAnswer): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    entry.settle(answer);
    const outcome = outcomeOf(answer);
    if (this.recent.size >= ENDED_KEPT) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(id, { item: entry.item, outcome, at: Date.now() });
    this.notify('resolved', entry.item, outcome);
    return true;
  }

  /** Front-ends are told best-effort: one that throws must not break the asking side. */
  private notify<K extends keyof InboxEvents>(event: K, ...args: InboxEvents[K]): void {
    try {
      this.emit(event, ...args);
    } catch (error) {
      process.emitWarning(`An inbox "${event}" listener threw: ${describeError(error)}`);
    }
  }

  private createItem(request: InboxRequest, timeoutMs: number): InboxItem {
    const createdAt = new Date();
    const base = {
      id: randomUUID(),
      kind: request.kind,
      server: request.server,
      ...(request.tool !== undefined && { tool: request.tool }),
      ...(request.session !== undefined && { session: request.session }),
      createdAt,
      deadline: new Date(createdAt.getTime() + timeoutMs),
    };
    if (request.kind === 'approval') {
      return Object.freeze({
        ...base,
        preview: previewArguments(request.args, request.inputSchema, { maxChars: this.previewChars }),
        ...(request.reason !== undefined && { reason: request.reason }),
      });
    }
    // A server's message could quote a credential; the URL stays whole, a person must open it.
    const preview = maskSecretValues(request.message);
    if (request.url !== undefined) {
      if (request.requestedSchema !== undefined) {
        throw new SwitchboardError(
          'INVALID_ARGUMENT',
          `The elicitation from "${request.server}" has both a URL and a form; send one or the other.`,
        );
      }
      return Object.freeze({
        ...base,
        mode: 'url' as const,
        preview,
        url: request.url,
        ...(request.elicitationId !== undefined && { elicitationId: request.elicitationId }),
      });
    }
    const schema = deepFreeze(structuredClone(request.requestedSchema ?? EMPTY_FORM));
    return Object.freeze({
      ...base,
      mode: 'form' as const,
      preview,
      requestedSchema: schema,
      secretFields: Object.freeze(secretFieldNames(schema)),
    });
  }
}
