import type { ServerConfig } from '../../core/server-config.js';
import type { ScanPolicy } from '../../policy/scan/finding.js';
import type { PinRepository } from '../../storage/ports.js';
import type { ServerSnapshot, Supervisor } from '../supervisor/supervisor.js';
import { buildCatalog, type CatalogSnapshot, type RejectedTool, type ServerOffer } from './catalog.js';

/**
 * Keeps the catalog current: after every server change it gathers what the connected servers
 * offer, builds a snapshot, records each tool's definition pin, and publishes the snapshot
 * when what it offers or what it refuses changed. Also reports each new scanner verdict once,
 * and answers for each server how many of its tools are served (`toolsOf`).
 */

/**
 * A server's tools as its status shows them: `tools` counts only those the catalog serves,
 * `toolsListed` all the server listed, and each refused one is in `rejectedTools` with why.
 */
export interface ServerTools {
  readonly tools: number;
  readonly toolsListed: number;
  readonly rejectedTools: readonly Pick<RejectedTool, 'tool' | 'reason' | 'detail'>[];
}

interface ServerCounts {
  served: number;
  rejected: Pick<RejectedTool, 'tool' | 'reason' | 'detail'>[];
}

export interface ToolChange {
  readonly server: string;
  readonly tool: string;
  readonly previousHash: string;
  readonly hash: string;
}

export interface CatalogKeeperOptions {
  readonly supervisor: Supervisor;
  readonly configOf: (server: string) => ServerConfig | undefined;
  readonly scan: ScanPolicy;
  readonly pins: PinRepository;
  readonly onToolChanged: (change: ToolChange) => void;
  /** A new snapshot: what it offers (its etag) or what it refuses changed. */
  readonly onPublished: (snapshot: CatalogSnapshot) => void;
  /** A line for a server's log (scanner verdicts). */
  readonly onNotice: (server: string, text: string) => void;
}

export class CatalogKeeper {
  private snapshot: CatalogSnapshot = buildCatalog([]);
  /** Served and refused tools per server, counted once per snapshot. */
  private counts: ReadonlyMap<string, ServerCounts> | undefined;
  private generation = 0;
  /** Each server's offer when it was last connected: what it is missed by while it reconnects. */
  private readonly lastOffers = new Map<string, ServerOffer>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: CatalogKeeperOptions) {}

  get current(): CatalogSnapshot {
    return this.snapshot;
  }

  /**
   * `snap`'s tools as the status shows them. The supervisor counts what the server listed; a
   * tool the catalog refused (scanner, name collision, bad schema, the entry's filter) is not
   * served, so only the catalog can say how many are. A server that is not connected serves none.
   */
  toolsOf(snap: ServerSnapshot): ServerTools {
    const mine = this.countsByServer().get(snap.name);
    return {
      tools: snap.state === 'connected' ? (mine?.served ?? 0) : 0,
      toolsListed: snap.tools,
      rejectedTools: mine?.rejected ?? [],
    };
  }

  private countsByServer(): ReadonlyMap<string, ServerCounts> {
    if (this.counts) return this.counts;
    const counts = new Map<string, ServerCounts>();
    const of = (server: string) => {
      const known = counts.get(server);
      if (known) return known;
      const entry: ServerCounts = { served: 0, rejected: [] };
      counts.set(server, entry);
      return entry;
    };
    for (const tool of this.snapshot.tools) of(tool.server).served++;
    for (const { server, tool, reason, detail } of this.snapshot.rejected)
      of(server).rejected.push({ tool, reason, detail });
    this.counts = counts;
    return counts;
  }

  /**
   * Starts a rebuild in the background. A failure (the store gone away) goes to `onNotice`,
   * never unhandled; after `stop()` nothing starts.
   */
  schedule(): void {
    if (this.stopped) return;
    const run = this.rebuild().catch((error: unknown) => {
      if (!this.stopped) this.options.onNotice('switchboard', `catalog rebuild failed: ${String(error)}`);
    });
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Resolves once no rebuild is under way (those started meanwhile included; bounded). */
  async idle(): Promise<void> {
    for (let round = 0; round < 100 && this.running.size > 0; round++) await Promise.all([...this.running]);
  }

  /** Lets the rebuilds under way finish, then starts no more (before the store closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running]);
  }

  async rebuild(): Promise<void> {
    // Rebuilds overlap (every server change starts one); only the latest may publish, or a
    // slow, older rebuild would put back a catalog that no longer holds.
    const generation = ++this.generation;
    const { offers, away } = await this.offers();
    if (generation !== this.generation || this.stopped) return;
    // Not served, so neither scanned nor pinned: only its names matter.
    const awaySnapshot = away.length > 0 ? buildCatalog(away, { scan: 'off' }) : undefined;
    const next = buildCatalog(offers, {
      scan: this.options.scan,
      ...(awaySnapshot && { away: awaySnapshot }),
    });
    // What it refuses counts too: a server whose every tool was refused changes nothing it
    // offers, and its refusals would otherwise never reach its status or its log. So do the
    // servers away: a reconnecting server's names are answered differently from a failed one's.
    if (
      next.etag === this.snapshot.etag &&
      verdictsKey(next) === verdictsKey(this.snapshot) &&
      awayKey(next) === awayKey(this.snapshot)
    )
      return;
    this.reportScan(next);
    this.snapshot = next;
    this.counts = undefined;
    for (const tool of next.tools) {
      const verdict = await this.options.pins.record(tool.server, tool.tool.name, tool.hash);
      if (verdict.status === 'changed') {
        this.options.onToolChanged({
          server: tool.server,
          tool: tool.tool.name,
          previousHash: verdict.previousHash,
          hash: tool.hash,
        });
      }
    }
    this.options.onPublished(next);
  }

  /**
   * What the connected servers offer, and what the servers that are connecting again (or
   * connected, their lists not read yet) offered when last connected.
   */
  private async offers(): Promise<{ offers: ServerOffer[]; away: ServerOffer[] }> {
    const { supervisor } = this.options;
    const offers: ServerOffer[] = [];
    const away: ServerOffer[] = [];
    const snapshots = supervisor.snapshot();
    const registered = new Set(snapshots.map((s) => s.name));
    for (const name of this.lastOffers.keys()) if (!registered.has(name)) this.lastOffers.delete(name);
    for (const snap of snapshots) {
      const connection = supervisor.connection(snap.name);
      if (!connection) {
        const last = this.lastOffers.get(snap.name);
        if (last && (snap.state === 'connecting' || snap.state === 'reconnecting')) away.push(last);
        continue;
      }
      const [tools, resources, templates, prompts, skills] = await Promise.all([
        connection.listTools().catch(() => undefined),
        connection.listResources().catch(() => undefined),
        connection.listResourceTemplates().catch(() => undefined),
        connection.listPrompts().catch(() => undefined),
        // Entries only: listing a server's skills reads none of their files (SEP-2640).
        connection.skills.list().catch(() => undefined),
      ]);
      const config = this.options.configOf(snap.name);
      const filter = config?.tools;
      const offer: ServerOffer = {
        server: snap.name,
        trusted: config?.trust === 'trusted',
        ...(filter?.include && { include: filter.include }),
        ...(filter?.exclude && { exclude: filter.exclude }),
        tools: tools?.items ?? [],
        resources: resources?.items ?? [],
        resourceTemplates: templates?.items ?? [],
        prompts: prompts?.items ?? [],
        skills: skills?.skills ?? [],
      };
      offers.push(offer);
      this.lastOffers.set(snap.name, offer);
    }
    return { offers, away };
  }

  /** Each new scanner verdict (rejection or warning), once. */
  private reportScan(next: CatalogSnapshot): void {
    const key = (v: { server: string; tool: string; detail: string }) => `${v.server}/${v.tool}/${v.detail}`;
    const before = new Set([...this.snapshot.rejected.map(key), ...this.snapshot.warnings.map(key)]);
    const verdicts = [...next.rejected.filter((r) => r.reason === 'injection_suspected'), ...next.warnings];
    for (const v of verdicts) {
      if (!before.has(key(v))) this.options.onNotice(v.server, `tool ${v.tool}: ${v.detail}`);
    }
  }
}

/** Which servers a snapshot holds as away. */
function awayKey(snapshot: CatalogSnapshot): string {
  const away = snapshot.away;
  if (!away) return '';
  const servers = new Set<string>();
  for (const t of away.tools) servers.add(t.server);
  for (const r of away.resources) servers.add(r.server);
  for (const r of away.resourceTemplates) servers.add(r.server);
  for (const p of away.prompts) servers.add(p.server);
  for (const s of away.skills) servers.add(s.server);
  return [...servers].sort().join('\u0000');
}

/** What a snapshot refuses and warns about, as one comparable string. */
const verdictKeys = new WeakMap<CatalogSnapshot, string>();
function verdictsKey(snapshot: CatalogSnapshot): string {
  let key = verdictKeys.get(snapshot);
  if (key === undefined) {
    key = JSON.stringify([
      snapshot.rejected.map((r) => [r.server, r.tool, r.reason, r.detail]),
      snapshot.warnings.map((w) => [w.server, w.tool, w.detail]),
    ]);
    verdictKeys.set(snapshot, key);
  }
  return key;
}
