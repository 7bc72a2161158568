/**
 * What the dashboard of any replica shows of the others (docs/replicas.md), beside the shared
 * Inbox (replica-inbox.ts):
 *
 * - **Servers**: each replica connects to its upstream servers on its own, so a server's state
 *   is per replica. Each publishes its servers' states in its `replicas` row when they change
 *   and says so on `switchboard_servers`; the others read them with their next heartbeat, at
 *   once when told. A server is shown with its state on every live replica, labelled by the
 *   replica's URL.
 * - **Events**: the server notifications a replica's connections receive are stored in the
 *   shared `events` table already; once they are written the replica says so on
 *   `switchboard_events`, and every other replica's live feed reads them at once.
 */
import type { Host } from '../../host/host.js';
import type { StoreNotifications } from '../../storage/ports.js';
import type { ApiReplicaServer, ApiServerState } from '../api/api-types.js';
import type { ReplicaViews } from '../api/replica-views.js';
import type { ReplicaInbox } from './replica-inbox.js';
import type { ReplicaSet } from './replica-set.js';

export const SERVERS_CHANNEL = 'switchboard_servers';
export const EVENTS_CHANNEL = 'switchboard_events';

/** A burst of state changes (a server connecting moves through several) is published once. */
const PUBLISH_AFTER_MS = 100;

/** One server as a replica publishes it. */
interface PublishedServer {
  readonly name: string;
  readonly state: ApiServerState;
  readonly tools: number;
  readonly error?: { readonly code: string; readonly message: string };
}

type Change = 'servers' | 'events';

export class SharedViews implements ReplicaViews {
  private readonly listeners = new Set<(change: Change) => void>();
  private readonly stops: (() => void)[] = [];
  private publishTimer: NodeJS.Timeout | undefined;
  private announcing = false;
  private announceAgain = false;
  private closed = false;

  constructor(
    readonly inbox: ReplicaInbox,
    private readonly options: {
      readonly host: Host;
      readonly replicas: ReplicaSet;
      readonly notifications: StoreNotifications | undefined;
      readonly onerror: (error: Error) => void;
    },
  ) {}

  /** Starts publishing this replica's servers and events, and following the others'. */
  async start(): Promise<void> {
    const { host, replicas, notifications } = this.options;
    host.on('servers', this.schedulePublish);
    host.on('catalog', this.schedulePublish);
    host.on('event', this.announceEvents);
    this.stops.push(replicas.onPeers(() => this.tell('servers')));
    if (notifications) {
      const follow = async (channel: string, onPayload: (sender: string | undefined) => void) => {
        try {
          this.stops.push(await notifications.listen(channel, onPayload));
        } catch (error) {
          this.report(error);
        }
      };
      await follow(SERVERS_CHANNEL, (sender) => {
        // The heartbeat reads what the other published, and tells the listeners if it changed.
        if (sender !== replicas.self) void replicas.refresh();
      });
      await follow(EVENTS_CHANNEL, (sender) => {
        if (sender !== replicas.self) this.tell('events');
      });
    }
    await this.publish();
  }

  serverStates(name: string): readonly ApiReplicaServer[] | undefined {
    const { host, replicas } = this.options;
    const here = host.servers().find((s) => s.name === name);
    const states: ApiReplicaServer[] = [];
    if (here) states.push({ replica: replicas.ownUrl, self: true, ...published(here) });
    for (const peer of replicas.alive()) {
      if (peer.id === replicas.self) continue;
      const there = publishedServers(peer.servers).find((s) => s.name === name);
      if (there) states.push({ replica: peer.url, self: false, ...withoutName(there) });
    }
    return states.length > 0 ? states : undefined;
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.publishTimer);
    const { host } = this.options;
    host.off('servers', this.schedulePublish);
    host.off('catalog', this.schedulePublish);
    host.off('event', this.announceEvents);
    for (const stop of this.stops.splice(0)) stop();
    this.listeners.clear();
  }

  private readonly schedulePublish = () => {
    if (this.publishTimer || this.closed) return;
    this.publishTimer = setTimeout(() => {
      this.publishTimer = undefined;
      void this.publish();
    }, PUBLISH_AFTER_MS);
    this.publishTimer.unref();
  };

  private async publish(): Promise<void> {
    const { host, replicas, notifications } = this.options;
    try {
      await replicas.publishServers(host.servers().map((s) => ({ name: s.name, ...published(s) })));
      await notifications?.notify(SERVERS_CHANNEL, replicas.self);
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * Tells the others that events were stored here, once they are written (a read flushes the
   * batched appends first): told earlier, they could read before the insert commits.
   */
  private readonly announceEvents = () => {
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = true;
    const { host, replicas, notifications } = this.options;
    void host
      .recentEvents({ limit: 1 })
      .then(() => notifications?.notify(EVENTS_CHANNEL, replicas.self))
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        this.announcing = false;
        if (this.announceAgain && !this.closed) {
          this.announceAgain = false;
          this.announceEvents();
        }
      });
  };

  private tell(change: Change): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  private report(error: unknown): void {
    this.options.onerror(error instanceof Error ? error : new Error(String(error)));
  }
}

function published(status: {
  readonly state: ApiServerState;
  readonly tools: number;
  readonly error?: { readonly code: string; readonly message: string } | undefined;
}): Omit<PublishedServer, 'name'> {
  return {
    state: status.state,
    tools: status.tools,
    ...(status.error && { error: { code: status.error.code, message: status.error.message } }),
  };
}

function withoutName({ name: _name, ...rest }: PublishedServer): Omit<PublishedServer, 'name'> {
  return rest;
}

/** The servers a replica published, as far as they are well-formed (another version may differ). */
function publishedServers(value: unknown): readonly PublishedServer[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (s): s is PublishedServer =>
      typeof s === 'object' &&
      s !== null &&
      typeof (s as PublishedServer).name === 'string' &&
      typeof (s as PublishedServer).state === 'string' &&
      typeof (s as PublishedServer).tools === 'number',
  );
}
