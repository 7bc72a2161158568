/**
 * The gateway replicas sharing one store, as one replica sees them (docs/replicas.md): it
 * announces itself with a heartbeat (its id and internal URL in `replicas`), keeps the last
 * list it read, records the sessions it opens in `mcp_sessions`, and relays requests for
 * another replica's session to it, signed with the forwarding proof. A replica whose heartbeat
 * is stale, or that refuses connections, is gone: its sessions are taken over by whichever
 * replica next gets one of their requests (a compare-and-set on the owner in the store). The
 * heartbeat also carries what the others show of this replica: how many Inbox front-ends it
 * has attached, and (published on change) its upstream servers' states.
 */
import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { ReplicaRecord, ReplicaRepository, SessionRecord } from '../../storage/ports.js';
import type { RequestHead } from '../http/context.js';
import type { PlacedSession, RelayFailure, SessionPlacement } from '../mcp/session-placement.js';
import { RequestForwarder } from './forward-request.js';
import { FORWARDED_HEADER, ForwardingProof, forwardingSubject } from './forwarded-header.js';

export interface ReplicaSetOptions {
  readonly repository: ReplicaRepository;
  /** The forwarding key (`forwardingKey` of the shared secret key). */
  readonly key: Uint8Array;
  /** Milliseconds between heartbeats. Default 1 s. */
  readonly beatMs?: number;
  /** A replica whose heartbeat is older than this is gone. Default 5 s. */
  readonly staleMs?: number;
  /** The sessions of a replica gone this long, and never taken over, are deleted. */
  readonly orphanedMs: number;
  readonly onerror?: (error: Error) => void;
  readonly now?: () => number;
}

/** Every how many heartbeats the records of long-gone replicas are swept. */
const SWEEP_EVERY_BEATS = 30;

/** How many session records are kept in memory (a read of the store otherwise). */
const MAX_KNOWN_SESSIONS = 10_000;

/** One replica's view of the set, and its part in it. */
export class ReplicaSet implements SessionPlacement {
  readonly self = randomUUID();
  private peers = new Map<string, ReplicaRecord>();
  /** Session records read or written here, by id: a session's owner changes only on a takeover. */
  private readonly known = new Map<string, SessionRecord>();
  private readonly proof: ForwardingProof;
  private readonly forwarder = new RequestForwarder();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private left = false;
  private url = '';
  private beats = 0;
  #share = 1;
  /** Inbox front-ends attached here, as the next heartbeat announces. */
  private frontEnds = 0;
  /** What the others looked like at the last heartbeat (see `onPeers`). */
  private lastPeers = '';
  private readonly peerListeners = new Set<() => void>();

  constructor(private readonly options: ReplicaSetOptions) {
    this.now = options.now ?? Date.now;
    this.proof = new ForwardingProof(options.key, this.now);
  }

  /** Announces this replica, reached at `url`, and starts its heartbeat. */
  async start(url: string): Promise<void> {
    this.url = url;
    await this.beat();
    const every = this.options.beatMs ?? 1_000;
    this.timer = setInterval(() => void this.refresh(), every);
    this.timer.unref();
  }

  /** Where this replica is reached (its announced URL). */
  get ownUrl(): string {
    return this.url;
  }

  /**
   * A heartbeat now (one at a time): announces what changed here, and reads the others again.
   * Resolves when it is done; failures go to `onerror`.
   */
  refresh(): Promise<void> {
    if (this.left || this.url === '') return Promise.resolve();
    this.beating ??= this.beat()
      .catch((error: unknown) => this.options.onerror?.(asError(error)))
      .finally(() => {
        this.beating = undefined;
      });
    return this.beating;
  }

  /**
   * How many Inbox front-ends are attached here: announced at once when that starts or stops
   * being none (an approval on another replica then waits, or is declined, accordingly).
   */
  setFrontEnds(count: number): void {
    const crossed = count > 0 !== this.frontEnds > 0;
    this.frontEnds = count;
    // After a heartbeat under way, which may have read the count before it changed.
    if (crossed) void (this.beating ?? Promise.resolve()).then(() => this.refresh());
  }

  /** Whether an Inbox front-end is attached to another live replica. */
  frontEndsElsewhere(): boolean {
    return this.alive().some((peer) => peer.id !== this.self && peer.frontEnds > 0);
  }

  /** Records this replica's upstream servers' states, for the others' dashboards. */
  async publishServers(servers: unknown): Promise<void> {
    if (this.left) return;
    await this.options.repository.publishServers(this.self, servers);
  }

  /** The live replica `id`, if it is one. */
  peer(id: string): ReplicaRecord | undefined {
    return this.alive().find((peer) => peer.id === id);
  }

  urlOf(id: string): string | undefined {
    return id === this.self ? undefined : this.peer(id)?.url;
  }

  /**
   * Calls `listener` whenever a heartbeat found the others changed: one came or went, or what
   * it shows (front-ends, servers) is new. Returns the function that stops it.
   */
  onPeers(listener: () => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  /** This replica's part of the set's work, 1/N of N alive (as of the last heartbeat). */
  get share(): number {
    return this.#share;
  }

  /** The replicas alive as last read, this one included. */
  alive(): readonly ReplicaRecord[] {
    const since = this.now() - (this.options.staleMs ?? 5_000);
    return [...this.peers.values()].filter((peer) => peer.url !== '' && peer.seenAt.getTime() >= since);
  }

  async opened(session: {
    readonly id: string;
    readonly principal: string;
    readonly kind: 'streamable' | 'sse';
    readonly state: unknown;
  }): Promise<void> {
    const record = { ...session, owner: this.self };
    await this.options.repository.recordSession(record);
    this.remember({ ...record, updatedAt: new Date(this.now()) });
  }

  closed(id: string): void {
    this.known.delete(id);
    // After close() the sessions stay recorded: the other replicas take them over.
    if (this.left) return;
    void this.options.repository
      .dropSession(id, this.self)
      .catch((error: unknown) => this.options.onerror?.(asError(error)));
  }

  async locate(id: string): Promise<PlacedSession | undefined> {
    const record = this.known.get(id) ?? (await this.options.repository.session(id));
    if (!record) return undefined;
    this.remember(record);
    const owner = record.owner === this.self ? undefined : this.alive().find((p) => p.id === record.owner);
    return {
      owner: record.owner,
      principal: record.principal,
      kind: record.kind,
      state: record.state,
      ...(owner && { ownerUrl: owner.url }),
    };
  }

  async takeOver(id: string, from: string): Promise<boolean> {
    this.known.delete(id);
    const taken = await this.options.repository.takeOver(id, from, this.self);
    // A replica that refused a connection is gone, whatever its last heartbeat said.
    if (taken) this.peers.delete(from);
    return taken;
  }

  async relay(
    url: string,
    session: string,
    request: Request,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Response | RelayFailure> {
    const answer = await this.forward(url, request, body, signal, session);
    if (typeof answer === 'string') this.known.delete(session);
    return answer;
  }

  /**
   * Relays `request` (with `body`, its text) to the replica at `url` with the forwarding proof,
   * for `session` when it is a session's: the answer streams back as it comes.
   */
  async forward(
    url: string,
    request: Request,
    body: string | undefined,
    signal: AbortSignal,
    session?: string,
  ): Promise<Response | RelayFailure> {
    const headers = new Headers(request.headers);
    // A 2024-11-05 message names its session in the URL: the proof covers it by this header.
    if (session !== undefined && !headers.has('mcp-session-id')) headers.set('mcp-session-id', session);
    const target = new URL(request.url);
    const subject = forwardingSubject(request.method, target.pathname, headers.get('mcp-session-id'));
    headers.set(FORWARDED_HEADER, this.proof.sign(this.self, subject));
    return this.forwarder.forward(url, {
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers,
      ...(body !== undefined && { body }),
      signal,
    });
  }

  relayed(head: RequestHead): boolean {
    const subject = forwardingSubject(head.method, head.pathname, head.header('mcp-session-id'));
    return this.proof.verify(head.header(FORWARDED_HEADER), subject) !== undefined;
  }

  /** Stops the heartbeat and leaves the set: the sessions held here are the others' to take over. */
  async close(): Promise<void> {
    if (this.left) return;
    this.left = true;
    clearInterval(this.timer);
    this.peerListeners.clear();
    await this.beating;
    await this.options.repository
      .leave(this.self)
      .catch((error: unknown) => this.options.onerror?.(asError(error)));
    await this.forwarder.close();
  }

  private async beat(): Promise<void> {
    const peers = await this.options.repository.beat(this.self, this.url, this.frontEnds);
    this.peers = new Map(peers.map((peer) => [peer.id, peer]));
    const alive = this.alive();
    this.#share = 1 / Math.max(1, alive.length);
    const others = JSON.stringify(
      alive.filter((p) => p.id !== this.self).map((p) => [p.id, p.url, p.frontEnds, p.servers]),
    );
    if (others !== this.lastPeers) {
      this.lastPeers = others;
      for (const listener of [...this.peerListeners]) listener();
    }
    // Sweeping is for records nobody will ask about again: now and then is often enough.
    if (this.beats++ % SWEEP_EVERY_BEATS === 0)
      await this.options.repository.sweep(new Date(this.now() - Math.max(60_000, this.options.orphanedMs)));
  }

  private remember(record: SessionRecord): void {
    if (this.known.size >= MAX_KNOWN_SESSIONS) this.known.clear();
    this.known.set(record.id, record);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Where the other replicas reach a gateway listening at `listening`: the same URL, unless it
 * is bound to every interface (`0.0.0.0`, `::`), which names no address another machine can
 * use; then the first external IPv4 address of this machine. Set `SWITCHBOARD_REPLICA_URL`
 * where that is not the right one (NAT, several networks).
 */
export function replicaUrl(listening: string): string {
  const url = new URL(listening);
  if (url.hostname !== '0.0.0.0' && url.hostname !== '[::]') return url.origin;
  for (const addresses of Object.values(networkInterfaces())) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external) {
      url.hostname = external.address;
      return url.origin;
    }
  }
  url.hostname = '127.0.0.1';
  return url.origin;
}
