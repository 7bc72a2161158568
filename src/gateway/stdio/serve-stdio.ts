import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { DEFAULT_GATEWAY, type GatewayTaskSettings } from '../../core/config/gateway-config.js';
import type { Host } from '../../host/host.js';
import { createGatewayServer, type GatewayServerOptions } from '../mcp/gateway-server.js';
import { ViewChanges } from '../mcp/served-catalog.js';
import { ServedTransport } from '../mcp/served-messages.js';
import { TaskLedger } from '../tasks/task-ledger.js';

/**
 * The gateway over stdio, for clients that spawn their servers (Claude Desktop, IDEs): one
 * connection, whichever era it opens with (the SDK's `serveStdio` pins it), served for the
 * local user — the person who started the process, so every server and tool is theirs to
 * reach; policy and consent still apply. Catalog changes become list-changed notifications.
 */
export interface StdioGatewayOptions extends Omit<GatewayServerOptions, 'host' | 'principal' | 'tasks'> {
  /** How the gateway keeps its tasks (the `gateway.tasks` settings); default the defaults. */
  readonly taskSettings?: GatewayTaskSettings;
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
  readonly onerror?: (error: Error) => void;
}

export interface StdioGateway {
  /** Resolves when the client closes the connection. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** The person who started the process: every server is theirs, and theirs to manage. */
export const LOCAL_PRINCIPAL = { id: 'local', allows: () => true, canManage: true } as const;

export function serveGatewayStdio(host: Host, options: StdioGatewayOptions): StdioGateway {
  const servers: ReturnType<typeof createGatewayServer>[] = [];
  let done!: () => void;
  const closed = new Promise<void>((resolve) => {
    done = resolve;
  });
  // A SERVER span per request on the pipe (served-messages.ts); a pass-through without telemetry.
  const transport = new ServedTransport(
    new StdioServerTransport(
      (options.input ?? process.stdin) as NodeJS.ReadStream,
      (options.output ?? process.stdout) as NodeJS.WriteStream,
    ),
    () => ({ principal: LOCAL_PRINCIPAL.id, transport: 'pipe' }),
  );
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    done();
  };
  (options.input ?? process.stdin).once('end', () => done());
  // Told of a list only when what this connection is served of it changed.
  const views = new ViewChanges(host, {
    naming: options.naming,
    expose: options.expose,
    management: options.management === true,
  });
  const onCatalog = () => {
    const lists = views.next()(LOCAL_PRINCIPAL);
    for (const server of servers) {
      if (lists.tools) void server.sendToolListChanged().catch(() => undefined);
      if (lists.prompts) void server.sendPromptListChanged().catch(() => undefined);
      if (lists.resources) void server.sendResourceListChanged().catch(() => undefined);
    }
  };
  host.on('catalog', onCatalog);
  const tasks = new TaskLedger({
    repository: host.tasks,
    settings: options.taskSettings ?? DEFAULT_GATEWAY.tasks,
  });
  const handle = serveStdio(
    () => {
      const server = transport.serveWithin(
        createGatewayServer({ ...options, host, principal: LOCAL_PRINCIPAL, tasks }),
      );
      servers.push(server);
      return server;
    },
    { transport, ...(options.onerror && { onerror: options.onerror }) },
  );
  return {
    closed,
    close: async () => {
      host.off('catalog', onCatalog);
      await handle.close();
      await tasks.close();
      done();
    },
  };
}
