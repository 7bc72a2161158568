/**
 * One Inbox across replicas (docs/replicas.md). Each replica's calls wait in its own Inbox, as
 * on one gateway; what this adds is that everyone sees and answers them anywhere:
 *
 * - every item this replica's Inbox queues is written to the store's `inbox_items` (never an
 *   answer: what front-ends show), and removed once it ends; each change is announced on the
 *   `switchboard_inbox` channel (PostgreSQL NOTIFY), and every replica reads the items again;
 * - an answer to another replica's item is relayed to that replica (with the forwarding proof,
 *   the caller's own credential), whose Inbox decides: of two answers at once exactly one wins,
 *   the other is refused there with 409 ALREADY_ANSWERED;
 * - the replicas announce how many front-ends (dashboards, inbox clients) they have attached,
 *   so an approval raised where nobody watches still waits when someone watches elsewhere.
 *
 * Items of a replica that stopped heartbeating are not shown: their calls died with it.
 */
import type { Inbox, InboxItem } from '../../host/inbox/inbox.js';
import { type InboxItemJson, inboxItemJson } from '../../host/inbox/inbox-item-json.js';
import type { InboxItemRepository, StoreNotifications } from '../../storage/ports.js';
import { apiError } from '../api/api-errors.js';
import type { DeskItem, InboxDesk } from '../api/inbox-desk.js';
import type { ReplicaSet } from './replica-set.js';

/** The channel on which replicas announce changes of their Inbox items. */
export const INBOX_CHANNEL = 'switchboard_inbox';

/** How often the items are read again without being told (a missed notification). */
const FALLBACK_READ_MS = 10_000;

export class ReplicaInbox implements InboxDesk {
  /** Other replicas' items, by id, as last read. */
  private remote = new Map<string, DeskItem & { readonly owner: string }>();
  private readonly listeners = new Set<() => void>();
  /** Writes of this replica's items, one after another (an item's removal after its addition). */
  private writes: Promise<void> = Promise.resolve();
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private readonly stops: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly options: {
      readonly inbox: Inbox;
      readonly repository: InboxItemRepository;
      readonly notifications: StoreNotifications | undefined;
      readonly replicas: ReplicaSet;
      readonly onerror: (error: Error) => void;
    },
  ) {}

  /** Starts sharing: this replica's items go to the store, the others' are read from it. */
  async start(): Promise<void> {
    const { inbox, replicas, notifications } = this.options;
    inbox.on('queued', this.onQueued);
    inbox.on('resolved', this.onResolved);
    inbox.shareFrontEnds({
      elsewhere: () => replicas.frontEndsElsewhere(),
      changed: (count) => replicas.setFrontEnds(count),
    });
    replicas.setFrontEnds(inbox.listenerCount('added'));
    // A replica that came or went shows or hides its items.
    this.stops.push(replicas.onPeers(() => this.read()));
    if (notifications) {
      try {
        this.stops.push(
          await notifications.listen(INBOX_CHANNEL, (sender) => {
            if (sender !== replicas.self) this.read();
          }),
        );
      } catch (error) {
        this.report(error);
      }
    }
    this.timer = setInterval(() => this.read(), FALLBACK_READ_MS);
    this.timer.unref();
    this.read();
    await this.reading;
  }

  items(): readonly DeskItem[] {
    const own = this.options.inbox.list().map((item) => ({ item }));
    if (this.remote.size === 0) return own;
    // A replica whose heartbeat went stale since the last read shows nothing any more.
    const { replicas } = this.options;
    const alive = [...this.remote.values()].filter((r) => replicas.peer(r.owner) !== undefined);
    return [...own, ...alive].sort((a, b) => a.item.createdAt.getTime() - b.item.createdAt.getTime());
  }

  find(id: string): DeskItem | undefined {
    const item = this.options.inbox.get(id);
    if (item) return { item };
    const remote = this.remote.get(id);
    // Its replica may have died since the last read: then its call is gone too.
    return remote && this.options.replicas.peer(remote.owner) ? remote : undefined;
  }

  async relayAnswer(item: DeskItem, request: Request, body: string, signal: AbortSignal): Promise<Response> {
    const owner = this.remote.get(item.item.id)?.owner;
    const peer = owner === undefined ? undefined : this.options.replicas.peer(owner);
    if (peer) {
      const answer = await this.options.replicas.forward(peer.url, request, body, signal);
      if (answer instanceof Response) return answer;
      if (answer === 'lost') {
        return apiError(
          502,
          'REPLICA_LOST',
          `The gateway replica holding inbox item "${item.item.id}" went away while it took this answer: ` +
            'the call that waited for it is gone with it. Its client retries the call, which asks again.',
          { id: item.item.id },
        );
      }
    }
    this.read();
    return apiError(
      410,
      'REPLICA_LOST',
      `The gateway replica holding inbox item "${item.item.id}" is gone, and the call that waited for ` +
        'it went with it; nothing was answered. Its client retries the call, which asks again.',
      { id: item.item.id },
    );
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops sharing, and removes this replica's items from the store. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const stop of this.stops.splice(0)) stop();
    const { inbox, repository, replicas } = this.options;
    inbox.off('queued', this.onQueued);
    inbox.off('resolved', this.onResolved);
    inbox.shareFrontEnds({ elsewhere: () => false, changed: () => undefined });
    await this.writes;
    await repository.removeOwnedBy(replicas.self).catch((error: unknown) => this.report(error));
  }

  private readonly onQueued = (item: InboxItem) => {
    const { repository, replicas } = this.options;
    this.write(() =>
      repository.add({
        id: item.id,
        owner: replicas.self,
        item: inboxItemJson(item),
        createdAt: item.createdAt,
      }),
    );
  };

  private readonly onResolved = (item: InboxItem) => {
    this.write(async () => {
      await this.options.repository.remove(item.id);
    });
  };

  /** Runs one store write after the others, then tells the other replicas. */
  private write(run: () => Promise<unknown>): void {
    const { notifications, replicas } = this.options;
    this.writes = this.writes
      .then(run)
      .then(() => notifications?.notify(INBOX_CHANNEL, replicas.self))
      .catch((error: unknown) => this.report(error));
  }

  /** Reads the other replicas' items again (once at a time; a request meanwhile reads once more). */
  private read(): void {
    if (this.closed) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.load()
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain) {
          this.readAgain = false;
          this.read();
        }
      });
  }

  private async load(): Promise<void> {
    const { repository, replicas } = this.options;
    const rows = await repository.list();
    const next = new Map<string, DeskItem & { readonly owner: string }>();
    for (const row of rows) {
      if (row.owner === replicas.self) continue;
      const peer = replicas.peer(row.owner);
      const item = peer && itemOf(row.item);
      if (item) next.set(row.id, { item, replica: peer.url, owner: row.owner });
    }
    const changed = next.size !== this.remote.size || [...next.keys()].some((id) => !this.remote.has(id));
    this.remote = next;
    if (changed) for (const listener of [...this.listeners]) listener();
  }

  private report(error: unknown): void {
    this.options.onerror(error instanceof Error ? error : new Error(String(error)));
  }
}

/** An item as stored (inbox-item-json.ts), back as the Inbox has it; undefined for a damaged row. */
function itemOf(stored: unknown): InboxItem | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const json = stored as InboxItemJson;
  if (typeof json.id !== 'string' || typeof json.createdAt !== 'string' || typeof json.deadline !== 'string')
    return undefined;
  return Object.freeze({ ...json, createdAt: new Date(json.createdAt), deadline: new Date(json.deadline) });
}
