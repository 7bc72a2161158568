import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventId, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/**
 * Where the event store keeps a copy of every stream event when gateway replicas share their
 * sessions (docs/replicas.md): the shared store, so the replica that takes a session over from
 * one that died resumes its streams (`GET` with `Last-Event-ID`) instead of refusing them. The
 * implementation is gateway/replicas/store-stream-archive.ts; one gateway has none.
 */
export interface StreamArchive {
  /** What starts the tokens of this replica's streams (see `GatewayEventStore`). */
  readonly origin: string;
  /**
   * Keeps one event, resolving once it is kept: the transport writes it to the client after.
   * Never rejects (an event the store could not take is only not resumable elsewhere).
   */
  store(event: ArchivedEvent): Promise<void>;
  /** The stream of `eventId`, when the archive holds it for `session`. */
  find(session: string, eventId: EventId): Promise<{ readonly streamId: StreamId } | undefined>;
  /**
   * Sends the events after `eventId` of its stream (the SDK's `replayEventsAfter`); throws
   * NOT_FOUND when the archive does not hold it for `session`.
   */
  replay(
    session: string,
    eventId: EventId,
    send: (eventId: EventId, message: JSONRPCMessage) => Promise<void>,
  ): Promise<StreamId>;
  /** Forgets every event of `session` (it ended). */
  drop(session: string): void;
}

/** One event as the archive keeps it. */
export interface ArchivedEvent {
  readonly token: string;
  readonly seq: number;
  readonly session: string;
  readonly streamId: StreamId;
  /** The message as JSON text (`{}` for a priming event). */
  readonly message: string;
  /** On a POST stream's first event: the ids of the requests it answers. */
  readonly requests?: readonly (string | number)[];
}

/**
 * The JSON-RPC ids of the requests being served, while a POST is handed to a session's
 * transport: the event store notes them on the stream the SDK opens for them (its id is the
 * SDK's own), so an heir can answer each request the stream never answered.
 */
export const streamRequests = new AsyncLocalStorage<readonly (string | number)[]>();

/** Runs `serve` with the ids of the requests in `body` noted (see `streamRequests`). */
export function withStreamRequests<T>(body: unknown, serve: () => Promise<T>): Promise<T> {
  const ids: (string | number)[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids.length === 0 ? serve() : streamRequests.run(ids, serve);
}
