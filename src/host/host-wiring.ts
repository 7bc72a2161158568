import type { Connection } from '../client/connection.js';
import type { LogEntry, ServerEvent } from '../client/connection-types.js';
import { AppViews } from './apps/app-views.js';
import { watchLogins } from './auth/login-watch.js';
import type { CatalogSnapshot } from './catalog/catalog.js';
import { CatalogKeeper, type ToolChange } from './catalog/catalog-keeper.js';
import { ContentReads } from './content-reads.js';
import { EventFeed } from './event-feed.js';
import type { GuardContext } from './guarded-content.js';
import type { HostParts } from './host-parts.js';
import { lifecycle } from './lifecycle-log.js';
import { ServerRegistry } from './server-registry.js';
import { HostSkills } from './skills/host-skills.js';

/**
 * How a Host's own pieces are connected to each other and to the parts `assembleHost` made:
 * the registry over the supervisor, the catalog keeper, the views, content reads and skills,
 * the event feed, the login watch and the media retention timer. The Host is its API; this is
 * its wiring, kept apart so each can be read (and changed) alone. What the pieces need of the
 * Host itself comes in `HostSide`.
 */

/** What the wiring needs of the Host it wires. */
export interface HostSide {
  onLog(entry: LogEntry): void;
  onEvent(event: ServerEvent): void;
  toolChanged(change: ToolChange): void;
  published(snapshot: CatalogSnapshot): void;
  /** A resource as the server returned it (for app views). */
  readRaw: AppViewsRead;
  connected(server: string): Connection;
}

type AppViewsRead = ConstructorParameters<typeof AppViews>[0]['read'];

/** The wired pieces, each owned by the Host from then on. */
export interface HostWiring {
  readonly registry: ServerRegistry;
  readonly keeper: CatalogKeeper;
  readonly views: AppViews;
  readonly reads: ContentReads;
  readonly skills: HostSkills;
  readonly events: EventFeed;
  readonly stopLoginWatch: () => void;
  readonly mediaPrune: NodeJS.Timeout;
  guardContext(server: string): GuardContext;
}

export function wireHost(parts: HostParts, host: HostSide): HostWiring {
  const { supervisor, governor, store, media } = parts;
  const registry = new ServerRegistry({
    repository: store.servers,
    supervisor,
    logs: parts.logs,
    network: parts.network,
    env: parts.env,
    sandboxPolicy: governor.settings.sandbox.registrations,
  });
  parts.bind({
    onLog: (entry) => host.onLog(entry),
    onEvent: (event) => host.onEvent(event),
    trustOf: (server) => registry.config(server)?.trust,
  });
  const keeper = new CatalogKeeper({
    supervisor,
    configOf: (server) => registry.config(server),
    scan: governor.settings.scan,
    pins: store.pins,
    onToolChanged: (change) => {
      governor.noteChanged(change.server, change.tool);
      host.toolChanged(change);
    },
    onPublished: (snapshot) => host.published(snapshot),
    onNotice: (server, text) => host.onLog({ ...lifecycle(server), text }),
  });
  const views = new AppViews({ catalog: () => keeper.current, read: host.readRaw });
  const guardContext = (server: string): GuardContext => {
    const trusted = registry.config(server)?.trust === 'trusted';
    const otherTools = keeper.current.tools.map((t) => ({ server: t.server, name: t.tool.name }));
    return { server, trusted, otherTools };
  };
  const readParts = { governor, connected: (server: string) => host.connected(server), guardContext };
  const events = new EventFeed(store.events, {
    onProblem: (server, text) => host.onLog({ ...lifecycle(server), text }),
  });
  const stopLoginWatch = watchLogins({
    credentials: parts.credentials,
    servers: () => supervisor.snapshot(),
    subscribe: (listener) => {
      supervisor.on('servers', listener);
      return () => supervisor.off('servers', listener);
    },
    reconnect: (server) => {
      if (registry.has(server)) registry.reload(server);
    },
  });
  // Retention runs now and hourly; unref'd so it never keeps a process alive.
  void media.prune().catch(() => undefined);
  const mediaPrune = setInterval(() => void media.prune().catch(() => undefined), 60 * 60 * 1000);
  mediaPrune.unref();
  return {
    registry,
    keeper,
    views,
    reads: new ContentReads(readParts),
    skills: new HostSkills({ ...readParts, catalog: () => keeper.current }),
    events,
    stopLoginWatch,
    mediaPrune,
    guardContext,
  };
}
