import type { ApiReplicaServer } from './api-types.js';
import type { InboxDesk } from './inbox-desk.js';

/**
 * What the API shows of the other replicas of this gateway (docs/replicas.md): their Inbox
 * items, their upstream servers' states, and word of their changes, for the event streams.
 * Absent on a single gateway. Made by gateway/replicas/shared-views.ts.
 */
export interface ReplicaViews {
  /** Every live replica's pending Inbox items, this one's included. */
  readonly inbox: InboxDesk;
  /** Server `name`'s state on each live replica, this one's first; undefined when none knows it. */
  serverStates(name: string): readonly ApiReplicaServer[] | undefined;
  /**
   * Calls `listener` when another replica's servers changed, or it stored server events;
   * returns the function that stops it.
   */
  subscribe(listener: (change: 'servers' | 'events') => void): () => void;
}
