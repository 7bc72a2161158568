import type { Host } from '../../host/host.js';
import type { StoredEvent } from '../../storage/ports.js';
import type { ApiEvent } from './api-types.js';
import type { InboxDesk } from './inbox-desk.js';
import type { ReplicaViews } from './replica-views.js';

/**
 * What the API's event streams (`GET /api/stream`) follow, attached to the host only while
 * at least one stream is open: server changes, catalog changes, Inbox changes and server
 * events. While attached it listens to the Inbox's `added` items, which is what makes the
 * Inbox count the dashboard as a front-end: approvals then wait for an answer instead of being
 * declined at once for want of anyone to ask.
 *
 * With replicas (docs/replicas.md) it follows the others too: their Inbox items, their servers'
 * states, and the events they store (each replica's connections store what they receive).
 *
 * Server events are relayed as the store has them, with the id `GET /api/events` lists them
 * under, so the dashboard can merge the two. The host announces an event as it starts storing
 * it; the feed then reads the events stored since the last one it relayed. One read that finds
 * nothing new is retried (twice at most): on PostgreSQL the insert may not be visible yet,
 * and an event still missed is relayed with the next one.
 */

/** One change the streams are told of. */
export type LiveChange =
  | { readonly kind: 'servers' }
  | { readonly kind: 'inbox' }
  | { readonly kind: 'catalog'; readonly etag: string }
  | { readonly kind: 'event'; readonly event: ApiEvent };

/** Told of each change while subscribed. */
export type LiveListener = (change: LiveChange) => void;

const CATCH_UP_READS = 3;
const CATCH_UP_PAGE = 500;

/** See the module comment. */
export class LiveFeed {
  private readonly listeners = new Set<LiveListener>();
  /** Bumped on every attach, so a read begun for an earlier attachment relays nothing. */
  private generation = 0;
  private lastId = 0;
  private relay: Promise<void> = Promise.resolve();
  private relayQueued = false;
  /** Stops following the other replicas (set while attached). */
  private stopElsewhere: (() => void)[] = [];

  constructor(
    private readonly host: Host,
    private readonly onError: (error: unknown) => void,
    private readonly shared: { readonly inbox?: InboxDesk; readonly replicas?: ReplicaViews } = {},
  ) {}

  /** How many listeners are attached (open streams). */
  get size(): number {
    return this.listeners.size;
  }

  /** Adds a listener (attaching to the host with the first); returns the function that removes it. */
  subscribe(listener: LiveListener): () => void {
    if (this.listeners.size === 0) this.attach();
    this.listeners.add(listener);
    return () => {
      if (!this.listeners.delete(listener)) return;
      if (this.listeners.size === 0) this.detach();
    };
  }

  /** Removes every listener and detaches. */
  close(): void {
    if (this.listeners.size === 0) return;
    this.listeners.clear();
    this.detach();
  }

  private readonly onServers = () => this.emit({ kind: 'servers' });
  private readonly onCatalog = (snapshot: { etag: string }) => {
    this.emit({ kind: 'catalog', etag: snapshot.etag });
    // A server's rejected tools come from the catalog.
    this.emit({ kind: 'servers' });
  };
  private readonly onInbox = () => this.emit({ kind: 'inbox' });
  private readonly onEvent = () => {
    if (this.relayQueued) return;
    this.relayQueued = true;
    const generation = this.generation;
    this.relay = this.relay.then(() => {
      this.relayQueued = false;
      return this.catchUp(generation, CATCH_UP_READS);
    });
  };

  private attach(): void {
    const generation = ++this.generation;
    this.lastId = Number.POSITIVE_INFINITY;
    // Events stored before the first stream opened are the listing's, not the stream's.
    this.relay = this.host
      .recentEvents({ limit: 1 })
      .then((page) => {
        if (generation === this.generation) this.lastId = page.events[0]?.id ?? 0;
      })
      .catch(this.onError);
    this.host.on('servers', this.onServers);
    this.host.on('catalog', this.onCatalog);
    this.host.on('event', this.onEvent);
    this.host.inbox.on('added', this.onInbox);
    this.host.inbox.on('resolved', this.onInbox);
    const { inbox, replicas } = this.shared;
    if (inbox) this.stopElsewhere.push(inbox.onChange(this.onInbox));
    if (replicas)
      this.stopElsewhere.push(
        replicas.subscribe((change) => (change === 'servers' ? this.onServers() : this.onEvent())),
      );
  }

  private detach(): void {
    for (const stop of this.stopElsewhere.splice(0)) stop();
    this.generation++;
    this.host.off('servers', this.onServers);
    this.host.off('catalog', this.onCatalog);
    this.host.off('event', this.onEvent);
    this.host.inbox.off('added', this.onInbox);
    this.host.inbox.off('resolved', this.onInbox);
  }

  private async catchUp(generation: number, reads: number): Promise<void> {
    try {
      for (let read = 0; read < reads && generation === this.generation; read++) {
        const page = await this.host.recentEvents({ limit: CATCH_UP_PAGE });
        if (generation !== this.generation) return;
        if (this.lastId === Number.POSITIVE_INFINITY) {
          // The first read failed: start from here rather than relay nothing ever.
          this.lastId = page.events[0]?.id ?? 0;
          return;
        }
        const fresh = page.events.filter((e) => e.id > this.lastId).reverse();
        if (fresh.length === 0) continue;
        this.lastId = fresh[fresh.length - 1]!.id;
        for (const event of fresh) this.emit({ kind: 'event', event: toApiEvent(event) });
        return;
      }
    } catch (error) {
      this.onError(error);
    }
  }

  private emit(change: LiveChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

/** A stored event as the API shows it. */
export function toApiEvent(event: StoredEvent): ApiEvent {
  return {
    id: event.id,
    server: event.server,
    method: event.method,
    params: event.params ?? null,
    receivedAt: event.receivedAt.toISOString(),
  };
}
