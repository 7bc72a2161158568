/**
 * The stream archive of replicas (mcp/stream-archive.ts) in the shared store's
 * `mcp_stream_events`: every event of every 2025 session's stream, written before the client
 * gets it, so the replica that takes a session over from one that died (kill -9 included)
 * resumes its streams from the event the client last saw. An answer the dead replica had
 * produced is replayed; a request it was still serving gets JSON-RPC error -32011
 * (`REPLICA_LOST`, retryable), once, on the resumed stream: the client retries it.
 *
 * Writes of one turn of the event loop share one insert. Bounded like the memory store: per
 * stream its newest `eventsPerStream` events, in time `ttlMs` (swept every 30 s), an event
 * larger than `maxEventBytes` is not archived (it is resumable on its own replica only), and a
 * session's events go when it ends.
 */
import { randomBytes } from 'node:crypto';
import type { EventId, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { SwitchboardError } from '../../core/errors.js';
import type { StreamEventRecord, StreamEventRepository } from '../../storage/ports.js';
import { PRIMING } from '../mcp/event-store.js';
import { replicaLostAnswer } from '../mcp/placed-sessions.js';
import type { ArchivedEvent, StreamArchive } from '../mcp/stream-archive.js';

export interface StoreStreamArchiveOptions {
  readonly repository: StreamEventRepository;
  readonly eventsPerStream: number;
  readonly ttlMs: number;
  readonly maxEventBytes: number;
  readonly onerror: (error: Error) => void;
  readonly now?: () => number;
}

/** A stream's older events are trimmed once in this many. */
const TRIM_EVERY = 100;
const PRUNE_EVERY_MS = 30_000;

interface Queued {
  readonly record: StreamEventRecord;
  readonly done: () => void;
}

export class StoreStreamArchive implements StreamArchive {
  /** Six random characters: enough that two replicas' tokens never share them by chance. */
  readonly origin = randomBytes(6).toString('base64url').slice(0, 6);
  private queue: Queued[] = [];
  private scheduled = false;
  private readonly writing = new Set<Promise<void>>();
  private readonly pruner: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: StoreStreamArchiveOptions) {
    this.now = options.now ?? Date.now;
    this.pruner = setInterval(() => {
      const before = new Date(this.now() - options.ttlMs);
      void options.repository.prune(before).catch((error: unknown) => this.report(error));
    }, PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  store(event: ArchivedEvent): Promise<void> {
    if (Buffer.byteLength(event.message) > this.options.maxEventBytes) return Promise.resolve();
    return new Promise<void>((done) => {
      this.queue.push({ record: { ...event, at: new Date(this.now()) }, done });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    });
  }

  async find(session: string, eventId: EventId): Promise<{ readonly streamId: StreamId } | undefined> {
    const at = parseEventId(eventId);
    if (!at) return undefined;
    const head = await this.options.repository.head(at.token);
    return head?.session === session ? { streamId: head.streamId } : undefined;
  }

  async replay(
    session: string,
    eventId: EventId,
    send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>,
  ): Promise<StreamId> {
    const at = parseEventId(eventId);
    const head = at && (await this.options.repository.head(at.token));
    if (!at || !head || head.session !== session) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `No stream of this session holds event ${JSON.stringify(eventId)}: it expired or never existed. ` +
          'Open a new stream without Last-Event-ID.',
      );
    }
    // All it keeps: the head, and at most `eventsPerStream` + TRIM_EVERY others between trims.
    const events = await this.options.repository.after(
      at.token,
      0,
      this.options.eventsPerStream + TRIM_EVERY + 1,
    );
    const answered = new Set<string | number>();
    let last = at.seq;
    for (const event of events) {
      last = Math.max(last, event.seq);
      if (event.message === PRIMING) continue;
      const message = JSON.parse(event.message) as JSONRPCMessage;
      if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message))
        answered.add(message.id);
      if (event.seq > at.seq) await send(`${at.token}.${event.seq}`, message);
    }
    // A stream of another replica, which is gone (this one serves its session now): what it
    // was still serving is lost. Each such request is answered once, and kept so, for a
    // client that resumes again.
    if (!at.token.startsWith(this.origin)) {
      for (const id of head.requests ?? []) {
        if (answered.has(id)) continue;
        const message = replicaLostAnswer(id) as JSONRPCMessage;
        last += 1;
        await this.store({
          token: at.token,
          seq: last,
          session,
          streamId: head.streamId,
          message: JSON.stringify(message),
        });
        await send(`${at.token}.${last}`, message);
      }
    }
    return head.streamId;
  }

  drop(session: string): void {
    void this.options.repository.dropSession(session).catch((error: unknown) => this.report(error));
  }

  /** Writes what is queued, and stops pruning. */
  async close(): Promise<void> {
    clearInterval(this.pruner);
    this.flush();
    await Promise.all(this.writing);
  }

  private flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const { repository, eventsPerStream } = this.options;
    const write = repository
      .append(batch.map((q) => q.record))
      .then(async () => {
        for (const { record } of batch) {
          if (record.seq % TRIM_EVERY === 0 && record.seq > eventsPerStream)
            await repository.trim(record.token, record.seq - eventsPerStream + 1);
        }
      })
      // Unarchived, an event is still the client's: only a resume elsewhere misses it.
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        for (const { done } of batch) done();
        this.writing.delete(write);
      });
    this.writing.add(write);
  }

  private report(error: unknown): void {
    this.options.onerror(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The token and sequence number of an event id (`<token>.<seq>`). */
function parseEventId(eventId: EventId): { token: string; seq: number } | undefined {
  const dot = eventId.lastIndexOf('.');
  const seq = Number(eventId.slice(dot + 1));
  if (dot <= 0 || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { token: eventId.slice(0, dot), seq };
}
