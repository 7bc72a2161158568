/**
 * Where a session lives when more than one gateway replica serves the same clients
 * (docs/replicas.md). The endpoint keeps its sessions in memory, as on one instance; a
 * placement tells it, for a session id it does not hold, which replica does, relays the
 * request there, and lets it take a session over from a replica that is gone. The
 * implementation over the shared store is `ReplicaSet` (gateway/replicas/replica-set.ts).
 */
import type { RequestHead } from '../http/context.js';

/** What the store says of a session this replica does not hold. */
export interface PlacedSession {
  /** The id of the replica that owns it. */
  readonly owner: string;
  /** Where the owner is reached, when it is another replica and alive. */
  readonly ownerUrl?: string;
  /** The id of the principal it belongs to. */
  readonly principal: string;
  readonly kind: 'streamable' | 'sse';
  /** What re-creating it needs: for a 2025 session, `{ initialize }`, its initialize request. */
  readonly state: unknown;
}

/**
 * Why a relay failed: `unreachable` when no connection was made (nothing was served there),
 * `lost` when the connection broke after the request went out (it may have been acted on).
 */
export type RelayFailure = 'unreachable' | 'lost';

/** The endpoint's view of the other replicas. */
export interface SessionPlacement {
  /** This replica's id. */
  readonly self: string;
  /** Records a session this replica opened (before its id reaches the client). */
  opened(session: {
    readonly id: string;
    readonly principal: string;
    readonly kind: 'streamable' | 'sse';
    readonly state: unknown;
  }): Promise<void>;
  /** The session ended here (closed, deleted, idle): forgets its record. */
  closed(id: string): void;
  /** The record of session `id`, or undefined when no replica has it. */
  locate(id: string): Promise<PlacedSession | undefined>;
  /** Makes this replica the owner of `id` if `from` still is; false when another was first. */
  takeOver(id: string, from: string): Promise<boolean>;
  /** Relays `request` (with `body`, its JSON text) to the owner at `url`, with the forwarding proof. */
  relay(
    url: string,
    session: string,
    request: Request,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response | RelayFailure>;
  /** Whether this request was relayed here by another replica: then it is never relayed again. */
  relayed(head: RequestHead): boolean;
  /** Where live replica `id` is reached; undefined when it is gone (or is this one). */
  urlOf(id: string): string | undefined;
  /** Relays a request that is no session's (a round of a multi-round call) to the replica at `url`. */
  forward(
    url: string,
    request: Request,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response | RelayFailure>;
}
