import type { ServerConfig } from '../../core/server-config.js';
import type { ScanPolicy } from '../../policy/scan/finding.js';
import type { PinRepository } from '../../storage/ports.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { buildCatalog, type CatalogSnapshot, type ServerOffer } from './catalog.js';

/**
 * Keeps the catalog current: after every server change it gathers what the connected servers
 * offer, builds a snapshot, records each tool's definition pin, and publishes the snapshot
 * when what it offers changed. Also reports each new scanner verdict once.
 */

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
  readonly onPublished: (snapshot: CatalogSnapshot) => void;
  /** A line for a server's log (scanner verdicts). */
  readonly onNotice: (server: string, text: string) => void;
}

export class CatalogKeeper {
  private snapshot: CatalogSnapshot = buildCatalog([]);
  private generation = 0;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: CatalogKeeperOptions) {}

  get current(): CatalogSnapshot {
    return this.snapshot;
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

  /** Lets the rebuilds under way finish, then starts no more (before the store closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.running]);
  }

  async rebuild(): Promise<void> {
    // Rebuilds overlap (every server change starts one); only the latest may publish, or a
    // slow, older rebuild would put back a catalog that no longer holds.
    const generation = ++this.generation;
    const offers = await this.offers();
    if (generation !== this.generation || this.stopped) return;
    const next = buildCatalog(offers, { scan: this.options.scan });
    if (next.etag === this.snapshot.etag) return;
    this.reportScan(next);
    this.snapshot = next;
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

  private async offers(): Promise<ServerOffer[]> {
    const { supervisor } = this.options;
    const offers: ServerOffer[] = [];
    for (const snap of supervisor.snapshot()) {
      const connection = supervisor.connection(snap.name);
      if (!connection) continue;
      const [tools, resources, templates, prompts] = await Promise.all([
        connection.listTools().catch(() => undefined),
        connection.listResources().catch(() => undefined),
        connection.listResourceTemplates().catch(() => undefined),
        connection.listPrompts().catch(() => undefined),
      ]);
      const config = this.options.configOf(snap.name);
      const filter = config?.tools;
      offers.push({
        server: snap.name,
        trusted: config?.trust === 'trusted',
        ...(filter?.include && { include: filter.include }),
        ...(filter?.exclude && { exclude: filter.exclude }),
        tools: tools?.items ?? [],
        resources: resources?.items ?? [],
        resourceTemplates: templates?.items ?? [],
        prompts: prompts?.items ?? [],
      });
    }
    return offers;
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
