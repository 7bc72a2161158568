import type { ServerEvent } from '../client/connection-types.js';
import type { Host } from './host.js';
import type { ServerSnapshot } from './supervisor/supervisor.js';

/**
 * Upstream resource subscriptions shared by many subscribers (the gateway's sessions), counted
 * per server and URI: the first subscriber sends `resources/subscribe` to the server, the last
 * to leave sends `resources/unsubscribe`, and every `notifications/resources/updated` the
 * server sends for the URI reaches each subscriber of it. A server that reconnects has
 * forgotten its subscriptions (they belong to a connection), so they are sent again.
 *
 * Only a 2025-era server that declares `resources.subscribe` is asked (MCP 2025-11-25,
 * "Resources" → "Subscriptions"). A subscriber of any other server is accepted all the same
 * and simply hears nothing: without the capability a server sends no updates, and 2026-07-28
 * servers have no `resources/subscribe` (their updates go to `subscriptions/listen`, which is
 * not relayed here).
 */

/** The part of the Host this needs. */
export type SubscriptionHost = Pick<Host, 'on' | 'off' | 'servers' | 'upstreamProtocol' | 'subscription'>;

/** One subscribed server URI, as {@link ResourceSubscriptions.active} reports it. */
export interface ActiveSubscription {
  readonly server: string;
  readonly uri: string;
  readonly subscribers: number;
}

interface Subscriber {
  readonly onUpdated: (uri: string) => void;
}

interface Entry {
  readonly server: string;
  readonly uri: string;
  readonly subscribers: Set<Subscriber>;
  /** Settles once the server has been asked: true when it was (so it is asked to stop at the end). */
  upstream: Promise<boolean>;
}

export class ResourceSubscriptions {
  private readonly entries = new Map<string, Entry>();
  /** Upstream unsubscribes under way, by key: a new first subscriber's subscribe goes after it. */
  private readonly leaving = new Map<string, Promise<void>>();
  /** Each server's last seen state, while anything is subscribed (to see it reconnect). */
  private readonly states = new Map<string, string>();
  private readonly onEvent = (event: ServerEvent): void => this.updated(event);
  private readonly onServers = (snapshots: readonly ServerSnapshot[]): void => this.reconnected(snapshots);

  constructor(private readonly host: SubscriptionHost) {}

  /**
   * Subscribes `onUpdated` to `uri` of `server`, subscribing upstream when it is the first
   * subscriber; rejects (and subscribes nothing) when the server refuses. Returns the function
   * that ends this subscription, unsubscribing upstream when it was the last; calling it again
   * does nothing.
   */
  async add(server: string, uri: string, onUpdated: (uri: string) => void): Promise<() => Promise<void>> {
    const key = keyOf(server, uri);
    let entry = this.entries.get(key);
    if (!entry) {
      if (this.entries.size === 0) this.listen();
      const after = this.leaving.get(key) ?? Promise.resolve();
      entry = { server, uri, subscribers: new Set(), upstream: after.then(() => this.ask(server, uri)) };
      this.entries.set(key, entry);
    }
    const subscriber: Subscriber = { onUpdated };
    entry.subscribers.add(subscriber);
    const remove = () => this.remove(key, entry, subscriber);
    try {
      await entry.upstream;
    } catch (error) {
      await remove();
      throw error;
    }
    return remove;
  }

  /** What is subscribed now, and by how many. */
  active(): ActiveSubscription[] {
    return [...this.entries.values()].map((e) => ({
      server: e.server,
      uri: e.uri,
      subscribers: e.subscribers.size,
    }));
  }

  private async remove(key: string, entry: Entry, subscriber: Subscriber): Promise<void> {
    if (!entry.subscribers.delete(subscriber)) return;
    if (entry.subscribers.size > 0 || this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    if (this.entries.size === 0) this.unlisten();
    const done: Promise<void> = entry.upstream
      .then((asked) =>
        asked ? this.host.subscription(entry.server, 'resources/unsubscribe', entry.uri) : undefined,
      )
      // A refused subscribe has nothing to undo; a server gone away has forgotten it already.
      .catch(() => undefined)
      .finally(() => {
        if (this.leaving.get(key) === done) this.leaving.delete(key);
      });
    this.leaving.set(key, done);
    await done;
  }

  /** Asks `server` to subscribe to `uri` when it can; whether it was asked. */
  private async ask(server: string, uri: string): Promise<boolean> {
    const { era, capabilities } = this.host.upstreamProtocol(server);
    if (era !== 'legacy' || capabilities?.resources?.subscribe !== true) return false;
    await this.host.subscription(server, 'resources/subscribe', uri);
    return true;
  }

  private updated(event: ServerEvent): void {
    if (event.method !== 'notifications/resources/updated') return;
    const uri = (event.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri !== 'string') return;
    // The exact URI only. The spec lets a server name a sub-resource of the one subscribed to,
    // but nothing in the URI says which subscription a sub-resource belongs to.
    const entry = this.entries.get(keyOf(event.server, uri));
    for (const subscriber of [...(entry?.subscribers ?? [])]) subscriber.onUpdated(uri);
  }

  private reconnected(snapshots: readonly ServerSnapshot[]): void {
    for (const snapshot of snapshots) {
      const before = this.states.get(snapshot.name);
      this.states.set(snapshot.name, snapshot.state);
      if (snapshot.state !== 'connected' || before === 'connected') continue;
      for (const entry of this.entries.values()) {
        if (entry.server !== snapshot.name) continue;
        // Chained, so an unsubscribe at the end still follows this subscribe. A refusal now is
        // not the client's to hear (it subscribed long ago): that subscription stays silent.
        entry.upstream = entry.upstream
          .catch(() => false)
          .then(() => this.ask(entry.server, entry.uri))
          .catch(() => false);
      }
    }
  }

  private listen(): void {
    for (const server of this.host.servers()) this.states.set(server.name, server.state);
    this.host.on('event', this.onEvent);
    this.host.on('servers', this.onServers);
  }

  private unlisten(): void {
    this.host.off('event', this.onEvent);
    this.host.off('servers', this.onServers);
    this.states.clear();
  }
}

const shared = new WeakMap<SubscriptionHost, ResourceSubscriptions>();

/** The one {@link ResourceSubscriptions} of `host`, so that every gateway session shares its counts. */
export function sharedResourceSubscriptions(host: SubscriptionHost): ResourceSubscriptions {
  let subscriptions = shared.get(host);
  if (!subscriptions) {
    subscriptions = new ResourceSubscriptions(host);
    shared.set(host, subscriptions);
  }
  return subscriptions;
}

function keyOf(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}
