import { Client, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/client';
import { APPS_EXTENSION, appsClientCapability } from '../core/mcp-apps.js';
import type { EraPlan } from './era.js';
import type { ListKind } from './list-cache.js';
import { logText } from './plain-log-notification.js';
import type { ServerRequestContext, ServerRequestHandlers } from './server-requests.js';
import { ToolListStore } from './tool-list-store.js';

/**
 * Builds the SDK `Client` for one connect attempt, wired to the connection's handlers. The
 * SDK speaks the protocol (both eras, `input_required` fulfilment, list-change subscriptions);
 * this decides what we declare and where everything the server sends goes.
 */
export interface SdkClientWiring {
  readonly clientInfo: Implementation;
  readonly pageCap: number;
  readonly handlers: ServerRequestHandlers;
  /** Runs a handler that waits on a person (request deadlines pause meanwhile). */
  readonly interactively: <T>(fn: () => Promise<T>) => Promise<T>;
  readonly context: (signal: AbortSignal) => ServerRequestContext;
  readonly onListChanged: (kind: ListKind) => void;
  readonly onServerLog: (level: string, text: string, logger?: string) => void;
  readonly onNotification: (method: string, params: unknown) => void;
  readonly onTransportError: (error: Error) => void;
  /** Declare the MCP Apps extension (the embedding app renders apps). */
  readonly apps?: boolean;
}

/**
 * What we declare: roots, elicitation (form with SEP-1034 defaults, URL), sampling when
 * handled, and MCP Apps (`extensions["io.modelcontextprotocol/ui"]`, SEP-1865 §Client (Host)
 * Capabilities) when the embedding app renders apps: servers that check for it offer their
 * views only to a client that declares it.
 */
export function clientCapabilities(
  handlers: ServerRequestHandlers,
  declare: { readonly apps?: boolean } = {},
): ClientCapabilities {
  return {
    roots: { listChanged: true },
    elicitation: { form: { applyDefaults: true }, url: {} },
    ...(handlers.sampling && { sampling: {} }),
    ...(declare.apps === true && { extensions: { [APPS_EXTENSION]: appsClientCapability() } }),
  };
}

export function buildSdkClient(plan: EraPlan, wiring: SdkClientWiring): Client {
  const { handlers, interactively, context } = wiring;
  const onChanged = (kind: ListKind) => () => wiring.onListChanged(kind);
  const client = new Client(wiring.clientInfo, {
    capabilities: clientCapabilities(handlers, { apps: wiring.apps === true }),
    versionNegotiation: plan.negotiation,
    supportedProtocolVersions: [...plan.supportedVersions],
    listMaxPages: wiring.pageCap,
    responseCacheStore: new ToolListStore(),
    // autoRefresh off: the connection refetches lazily through its own list cache.
    listChanged: {
      tools: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('tools') },
      resources: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('resources') },
      prompts: { autoRefresh: false, debounceMs: 20, onChanged: onChanged('prompts') },
    },
  });
  client.setRequestHandler('roots/list', async (_request, ctx) => ({
    roots: await handlers.roots(context(ctx.mcpReq.signal)),
  }));
  client.setRequestHandler('elicitation/create', (request, ctx) =>
    interactively(() => handlers.elicitation(request.params, context(ctx.mcpReq.signal))),
  );
  const sampling = handlers.sampling;
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      interactively(() => sampling(request.params, context(ctx.mcpReq.signal))),
    );
  }
  client.setNotificationHandler('notifications/message', (n) => {
    const { level, logger, data } = n.params;
    wiring.onServerLog(level, logText(data), logger);
  });
  client.fallbackNotificationHandler = async (n) => wiring.onNotification(n.method, n.params);
  client.onerror = (error) => wiring.onTransportError(error);
  return client;
}
