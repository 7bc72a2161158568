import { randomBytes } from 'node:crypto';
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { SwitchboardError } from '../../core/errors.js';
import { type StreamArchive, streamRequests } from './stream-archive.js';

/**
 * What the gateway keeps for resumable streams (MCP 2025-11-25 Streamable HTTP, "Resumability
 * and Redelivery"; SEP-1699 SSE polling): every event a 2025-era session's transport sends, so
 * a client whose stream dropped (or that the server closed on purpose, after the priming event
 * told it `retry`) can come back with `GET` + `Last-Event-ID` and receive what it missed.
 *
 * Bounded four ways, because every session of every client writes here: per stream (the
 * newest `eventsPerStream` events and `bytesPerStream` bytes; older ones go first), in time
 * (events older than `ttlMs` are gone), answered streams by their own budget (`answeredBytes`,
 * see there), and as a whole (past `totalBytes`, the streams written least recently are
 * dropped whole). A resume from an event that has been dropped since gets the events still
 * kept after it: what fell out in between is lost, not invented.
 *
 * With replicas (docs/replicas.md) every event is also written to an archive in the shared
 * store (stream-archive.ts) before it goes to the client, so the replica that takes a session
 * over from one that died resumes its streams from there.
 */
export interface EventStoreLimits {
  readonly eventsPerStream: number;
  readonly bytesPerStream: number;
  readonly ttlMs: number;
  /**
   * How long a stream is kept once it holds its answer (a JSON-RPC response: a POST stream is
   * then complete). A client whose connection broke comes back after the priming event's
   * `retry` (a second), so this need not be the full TTL; a busy gateway answers thousands of
   * calls a second, and keeping each for minutes would hold a great deal for nobody.
   */
  readonly answeredTtlMs: number;
  /**
   * The most the answered streams may hold together; past it the earliest answered go first,
   * before their `answeredTtlMs`. A gateway answering hundreds of 64 KiB results a second
   * otherwise held every one of them for 10 s — the whole `totalBytes`, tens of MiB, kept for
   * clients that already had their answer — while a quiet one still keeps each for the TTL.
   */
  readonly answeredBytes: number;
  readonly totalBytes: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: EventStoreLimits = {
  eventsPerStream: 1_000,
  bytesPerStream: 1024 * 1024,
  // Long enough for a client to come back after a network blip or a laptop lid; much shorter
  // than the idle session TTL, since a stream nobody resumes within minutes is not resumed.
  ttlMs: 5 * 60_000,
  answeredTtlMs: 10_000,
  answeredBytes: 8 * 1024 * 1024,
  totalBytes: 64 * 1024 * 1024,
};

/**
 * The SDK `EventStore` of one session, and a way to store a message whose JSON text the
 * caller made already (the gateway's own session answers, fast-session-call.ts): the same
 * event, without encoding a large answer a second time.
 */
export interface SessionEventStore extends EventStore {
  /** `storeEvent`, with `json` being `JSON.stringify(message)`. */
  storeEncoded(streamId: StreamId, message: JSONRPCMessage, json: string): Promise<EventId>;
}

/** What one kept event costs besides its JSON: the entry, its id, its place in the array. */
const EVENT_OVERHEAD_BYTES = 64;

interface StoredEvent {
  readonly seq: number;
  readonly at: number;
  readonly bytes: number;
  /**
   * The message as JSON text: a string costs a fraction of the object tree it was made from,
   * and a stream is far more often stored than replayed.
   */
  readonly json: string;
}

interface Stream {
  /** Random, so an event id says nothing about other sessions' traffic. */
  readonly token: string;
  readonly session: string;
  readonly streamId: StreamId;
  readonly events: StoredEvent[];
  bytes: number;
  nextSeq: number;
  lastWrite: number;
  /** When it stored its answer (a JSON-RPC response), if it did. */
  answeredAt?: number;
}

/**
 * The gateway's in-memory event store, shared by all sessions. Each session's transport gets
 * its own view (`forSession`): the SDK names the standalone GET stream the same in every
 * session, and a session must never replay another's events. An event id is
 * `<stream token>.<sequence>`, so a `Last-Event-ID` leads straight to its stream.
 */
export class GatewayEventStore {
  /** Every stream by token, least recently written first (re-inserted on each write). */
  private readonly streams = new Map<string, Stream>();
  private readonly bySession = new Map<string, Map<StreamId, Stream>>();
  /** The answered streams by token, in the order they were answered (see `answeredTtlMs`). */
  private readonly answered = new Map<string, Stream>();
  private readonly limits: EventStoreLimits;
  private readonly now: () => number;
  private total = 0;
  /** Bytes of the streams in `answered`. */
  private answeredTotal = 0;
  private readonly archive: StreamArchive | undefined;

  constructor(
    options: {
      readonly limits?: Partial<EventStoreLimits>;
      readonly now?: () => number;
      /** Where events are kept for the other replicas (stream-archive.ts); absent on one gateway. */
      readonly archive?: StreamArchive;
    } = {},
  ) {
    this.limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...options.limits };
    this.now = options.now ?? Date.now;
    this.archive = options.archive;
  }

  /**
   * The SDK `EventStore` of one session: it sees and replays only that session's streams. The
   * session stores events from now until `clear(session)`; what its transport sends after that
   * (answers of calls still running when it closed) is not kept, since nobody can resume it.
   */
  forSession(session: string): SessionEventStore {
    if (!this.bySession.has(session)) this.bySession.set(session, new Map());
    const archive = this.archive;
    if (archive) {
      // Kept in the archive before the client has it: what a client saw, an heir can replay.
      const archived = async (streamId: StreamId, message: JSONRPCMessage, json: string) => {
        const id = this.store(session, streamId, message, json);
        await this.archiveEvent(archive, session, streamId, id, json);
        return id;
      };
      return {
        storeEvent: (streamId, message) => archived(streamId, message, JSON.stringify(message)),
        storeEncoded: archived,
        getStreamIdForEventId: async (eventId) =>
          this.find(session, eventId)?.stream.streamId ?? (await archive.find(session, eventId))?.streamId,
        replayEventsAfter: (eventId, { send }) =>
          this.find(session, eventId) === undefined
            ? archive.replay(session, eventId, send)
            : this.replay(session, eventId, send),
      };
    }
    return {
      storeEvent: async (streamId, message) =>
        this.store(session, streamId, message, JSON.stringify(message)),
      storeEncoded: async (streamId, message, json) => this.store(session, streamId, message, json),
      getStreamIdForEventId: async (eventId) => this.find(session, eventId)?.stream.streamId,
      replayEventsAfter: (eventId, { send }) => this.replay(session, eventId, send),
    };
  }

  /**
   * Forgets every event of `session`, and keeps no more (its session closed). `archived`
   * false keeps what the archive holds (this replica stops, and another will take it over).
   */
  clear(session: string, options: { readonly archived?: boolean } = {}): void {
    if (options.archived !== false) this.archive?.drop(session);
    const streams = this.bySession.get(session);
    if (!streams) return;
    for (const stream of streams.values()) this.drop(stream);
    this.bySession.delete(session);
  }

  /** Writes the event `id` (just stored here) to the archive; the first of a stream says its requests. */
  private async archiveEvent(
    archive: StreamArchive,
    session: string,
    streamId: StreamId,
    id: EventId,
    json: string,
  ): Promise<void> {
    const dot = id.lastIndexOf('.');
    const seq = Number(id.slice(dot + 1));
    // Only a stream that opens with a priming event is a POST's: the standalone GET stream's
    // first event may be sent while some POST is being served.
    const requests = seq === 1 && json === PRIMING ? streamRequests.getStore() : undefined;
    await archive.store({
      token: id.slice(0, dot),
      seq,
      session,
      streamId,
      message: json,
      ...(requests && { requests }),
    });
  }

  /**
   * Drops the streams whose newest event is past the TTL, and the answered ones past theirs.
   * Cheap: each walk stops at the first fresh stream.
   */
  prune(): void {
    const now = this.now();
    const cutoff = now - this.limits.ttlMs;
    for (const stream of this.streams.values()) {
      if (stream.lastWrite > cutoff) break;
      this.drop(stream);
    }
    const answeredCutoff = now - this.limits.answeredTtlMs;
    for (const stream of this.answered.values()) {
      if (stream.answeredAt! > answeredCutoff) break;
      this.drop(stream);
    }
  }

  /** What is kept right now, for tests and status. */
  get size(): { readonly streams: number; readonly events: number; readonly bytes: number } {
    let events = 0;
    for (const stream of this.streams.values()) events += stream.events.length;
    return { streams: this.streams.size, events, bytes: this.total };
  }

  private store(session: string, streamId: StreamId, message: JSONRPCMessage, json: string): EventId {
    this.prune();
    const now = this.now();
    const streams = this.bySession.get(session);
    // An id no stream has: the SDK needs one, and a replay from it finds nothing, as it should.
    if (!streams) return 'closed.0';
    let stream = streams.get(streamId);
    if (!stream) {
      stream = {
        // With an archive, the token names this replica too: the archive tells its own streams
        // (perhaps still running) from those of a replica that died.
        token: this.archive ? `${this.archive.origin}${streamToken()}` : streamToken(),
        session,
        streamId,
        events: [],
        bytes: 0,
        nextSeq: 1,
        lastWrite: now,
      };
      streams.set(streamId, stream);
    }
    const bytes = Buffer.byteLength(json) + EVENT_OVERHEAD_BYTES;
    const seq = stream.nextSeq++;
    stream.events.push({ seq, at: now, bytes, json });
    this.grow(stream, bytes);
    stream.lastWrite = now;
    this.streams.delete(stream.token);
    this.streams.set(stream.token, stream);
    if (stream.answeredAt === undefined && isResponse(message)) {
      stream.answeredAt = now;
      this.answered.set(stream.token, stream);
      this.answeredTotal += stream.bytes;
    }
    this.trim(stream);
    // The answered streams within their budget, earliest answered first; this one stays, as below.
    for (const earliest of this.answered.values()) {
      if (this.answeredTotal <= this.limits.answeredBytes || earliest === stream) break;
      this.drop(earliest);
    }
    // The newest event is always kept, even alone over a bound: dropping it would lose a
    // response the client is waiting for, and the whole-store bound still holds the rest.
    for (const oldest of this.streams.values()) {
      if (this.total <= this.limits.totalBytes || oldest === stream) break;
      this.drop(oldest);
    }
    return `${stream.token}.${seq}`;
  }

  /** Drops events of `stream` past the TTL or over its bounds, oldest first, keeping the newest. */
  private trim(stream: Stream): void {
    const cutoff = this.now() - this.limits.ttlMs;
    const { events } = stream;
    while (
      events.length > 1 &&
      (events.length > this.limits.eventsPerStream ||
        stream.bytes > this.limits.bytesPerStream ||
        events[0]!.at <= cutoff)
    ) {
      const gone = events.shift()!;
      this.grow(stream, -gone.bytes);
    }
  }

  /** Counts `bytes` more (or fewer) for `stream`, in every total it is part of. */
  private grow(stream: Stream, bytes: number): void {
    stream.bytes += bytes;
    this.total += bytes;
    if (stream.answeredAt !== undefined) this.answeredTotal += bytes;
  }

  private drop(stream: Stream): void {
    this.streams.delete(stream.token);
    if (this.answered.delete(stream.token)) this.answeredTotal -= stream.bytes;
    this.bySession.get(stream.session)?.delete(stream.streamId);
    this.total -= stream.bytes;
  }

  /** The stream and sequence number of `eventId`, when it is this session's and was issued. */
  private find(session: string, eventId: EventId): { stream: Stream; seq: number } | undefined {
    this.prune();
    const dot = eventId.lastIndexOf('.');
    if (dot < 0) return undefined;
    const stream = this.streams.get(eventId.slice(0, dot));
    const seq = Number(eventId.slice(dot + 1));
    if (!stream || stream.session !== session || !Number.isSafeInteger(seq)) return undefined;
    // Only a number this stream has handed out; a later one would replay nothing, silently.
    if (seq < 1 || seq >= stream.nextSeq) return undefined;
    return { stream, seq };
  }

  /**
   * Sends the events after `eventId` on its stream, in order. Events stored while the replay
   * awaits the client are sent too (the SDK maps the new stream only once this resolves, so
   * they would otherwise reach nobody); bounded so a chatty stream cannot keep it going.
   */
  private async replay(
    session: string,
    eventId: EventId,
    send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>,
  ): Promise<StreamId> {
    const found = this.find(session, eventId);
    if (!found) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `No stream of this session holds event ${JSON.stringify(eventId)}: it expired or never existed. ` +
          'Open a new stream without Last-Event-ID.',
      );
    }
    const { stream } = found;
    this.trim(stream);
    let after = found.seq;
    for (let round = 0; round < 10; round++) {
      const batch = stream.events.filter((e) => e.seq > after);
      if (batch.length === 0) break;
      for (const event of batch) {
        after = event.seq;
        // The priming event (`{}`, empty data on the wire) primes a stream; it is no message.
        if (event.json !== PRIMING)
          await send(`${stream.token}.${event.seq}`, JSON.parse(event.json) as JSONRPCMessage);
      }
    }
    return stream.streamId;
  }
}

/** Whether `message` is a JSON-RPC response (a result or an error), which ends a POST stream. */
function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && ('result' in message || 'error' in message);
}

/** What the SDK stores for a priming event. */
export const PRIMING = '{}';

/** Random bytes drawn at once for stream tokens: one system call per many streams, not one each. */
const TOKEN_BYTES = 9;
let tokenPool = Buffer.alloc(0);
let tokenOffset = 0;

/** A fresh unguessable stream token (9 random bytes, base64url). */
function streamToken(): string {
  if (tokenOffset + TOKEN_BYTES > tokenPool.length) {
    tokenPool = randomBytes(TOKEN_BYTES * 256);
    tokenOffset = 0;
  }
  const token = tokenPool.toString('base64url', tokenOffset, tokenOffset + TOKEN_BYTES);
  tokenOffset += TOKEN_BYTES;
  return token;
}
