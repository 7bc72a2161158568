import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type CreateMessageResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  UriTemplate,
} from '@modelcontextprotocol/server';
import type { LogEntry } from '../../client/connection-types.js';
import type { ElicitationParams, SamplingParams } from '../../client/server-requests.js';
import { describeError, isSwitchboardError } from '../../core/errors.js';
import type { Caller } from '../../host/caller-relay.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import { compileNameFilter } from '../../host/catalog/globs.js';
import type { AskApproval } from '../../host/governance/governor.js';
import type { Host } from '../../host/host.js';
import { exposedPrompts, exposedTools, type NamingMode } from './exposed-names.js';
import type { IdempotencyCache } from './idempotency.js';
import { checkInputCaps, type InputLimits } from './input-caps.js';
import { ownResource, ownResources, ownResourceTemplates } from './own-resources.js';

/**
 * One MCP server instance over the governed catalog, for one principal: what the gateway
 * serves per legacy session or per modern request. Tools, resources, resource templates and
 * prompts of the upstream servers (through the expose allow-lists and the principal's own),
 * the gateway's own status resources, and every call through the host's governed path —
 * with a consent question to the calling client when policy asks, progress relayed, and the
 * client's cancellation passed upstream.
 */

/** Who is calling: the authenticated principal (HTTP) or the local user (stdio). */
export interface GatewayPrincipal {
  readonly id: string;
  allows(server: string, tool?: string): boolean;
}

export interface GatewayServerOptions {
  readonly host: Host;
  readonly principal: GatewayPrincipal;
  readonly naming: NamingMode;
  /** Globs: tools and prompts as `server/name`, resources by URI. */
  readonly expose: {
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly prompts: readonly string[];
  };
  /** `on`: a call policy asks about is put to the calling client first; `off`: the host's Inbox decides. */
  readonly consent: 'on' | 'off';
  readonly limits: InputLimits;
  readonly idempotency: IdempotencyCache<CallToolResult>;
}

const CONSENT_KEY = 'consent';

export function createGatewayServer(options: GatewayServerOptions): Server {
  const { host, principal } = options;
  const resourceFilter = compileNameFilter(options.expose.resources);
  const promptFilter = compileNameFilter(options.expose.prompts);
  const server = new Server(
    { name: 'switchboard', version: '0.1.0' },
    {
      instructions: 'Switchboard: the tools, resources and prompts of several MCP servers, governed.',
      capabilities: {
        // A kind is advertised only when something of that kind may be exposed.
        ...(options.expose.tools.length > 0 && { tools: { listChanged: true } }),
        resources: { listChanged: true, subscribe: true },
        ...(options.expose.prompts.length > 0 && { prompts: { listChanged: true } }),
        completions: {},
        logging: {},
      },
    },
  );

  const tools = () => servedTools(host, principal, options.naming, options.expose.tools);
  const prompts = () => {
    const all = exposedPrompts(host.catalog().prompts, options.naming);
    for (const [name, p] of all) {
      if (!promptFilter(`${p.server}/${p.prompt.name}`) || !principal.allows(p.server)) all.delete(name);
    }
    return all;
  };
  const resources = () =>
    host.catalog().resources.filter((r) => resourceFilter(r.item.uri) && principal.allows(r.server));
  const templates = () =>
    host
      .catalog()
      .resourceTemplates.filter((r) => resourceFilter(r.item.uriTemplate) && principal.allows(r.server));

  server.setRequestHandler('tools/list', () => ({
    tools: [...tools()].map(([name, t]) => ({ ...t.tool, name })),
  }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const entry = tools().get(name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const tooBig = checkInputCaps(args, options.limits);
    if (tooBig) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Refused: ${tooBig}.`);
    const consent = await consentFor(options, server, entry, args, ctx);
    if ('inputRequired' in consent) return consent.inputRequired;
    if ('refused' in consent) return errorResult(consent.refused);
    const run = () => callUpstream(options, server, entry, args, ctx, consent.askApproval);
    const key = ctx.mcpReq._meta?.idempotencyKey;
    return typeof key === 'string' && key.length > 0 && key.length <= 200
      ? options.idempotency.run(principal.id, key, run)
      : run();
  });

  server.setRequestHandler('resources/list', () => ({
    resources: [...ownResources(), ...resources().map((r) => r.item)],
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [...ownResourceTemplates(), ...templates().map((r) => r.item)],
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const own = ownResource(host, uri);
    if (own) return own;
    const owner =
      resources().find((r) => r.item.uri === uri)?.server ??
      templates().find((t) => new UriTemplate(t.item.uriTemplate).match(uri) !== null)?.server;
    if (!owner || !resourceFilter(uri)) throw new ResourceNotFoundError(uri);
    return forwarded(() => host.readResource(owner, uri, { signal: ctx.mcpReq.signal }));
  });

  // Subscriptions are accepted and remembered per instance; the upstream's update
  // notifications are not relayed yet.
  const subscribed = new Set<string>();
  server.setRequestHandler('resources/subscribe', (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  // Accepted so clients that set a level work; relayed log lines are not filtered by it yet.
  server.setRequestHandler('logging/setLevel', () => ({}));

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const ref = request.params.ref as { type: string; name?: string; uri?: string };
    const owner =
      ref.type === 'ref/prompt'
        ? prompts().get(ref.name ?? '')
        : templates().find((t) => t.item.uriTemplate === ref.uri);
    if (!owner) return { completion: { values: [], hasMore: false } };
    const upstreamRef = 'prompt' in owner ? { ...ref, name: owner.prompt.name } : ref;
    return forwarded(
      async () =>
        (await host.complete(
          owner.server,
          { ...request.params, ref: upstreamRef },
          { signal: ctx.mcpReq.signal },
        )) as {
          completion: { values: string[] };
        },
    );
  });

  server.setRequestHandler('prompts/list', () => ({
    prompts: [...prompts()].map(([name, p]) => ({ ...p.prompt, name })),
  }));
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const found = prompts().get(request.params.name);
    if (!found)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    return forwarded(() =>
      host.getPrompt(found.server, found.prompt.name, request.params.arguments ?? {}, {
        signal: ctx.mcpReq.signal,
      }),
    );
  });

  return server;
}

/**
 * The tools `principal` is served, by served name: the catalog named per `naming`, through
 * the expose filter (`server/tool` globs) and the principal's own grants.
 */
export function servedTools(
  host: Host,
  principal: GatewayPrincipal,
  naming: NamingMode,
  expose: readonly string[],
): Map<string, CatalogTool> {
  // Every tools/call looks its tool up here: computed once per catalog snapshot and principal,
  // not once per call (a catalog can hold thousands of tools).
  const snapshot = host.catalog();
  let perSnapshot = servedCache.get(snapshot);
  if (!perSnapshot) {
    perSnapshot = new Map();
    servedCache.set(snapshot, perSnapshot);
  }
  const key = `${principal.id}\u0000${naming}\u0000${expose.join('\u0000')}`;
  let served = perSnapshot.get(key);
  if (!served) {
    const keep = compileNameFilter(expose);
    served = exposedTools(snapshot.tools, naming);
    for (const [name, t] of served) {
      if (!keep(`${t.server}/${t.tool.name}`) || !principal.allows(t.server, t.tool.name))
        served.delete(name);
    }
    // Bounded: a snapshot is replaced on every catalog change, and principals are few.
    if (perSnapshot.size >= 1_000) perSnapshot.clear();
    perSnapshot.set(key, served);
  }
  return served;
}

const servedCache = new WeakMap<object, Map<string, Map<string, CatalogTool>>>();

type Consent =
  | { readonly askApproval?: AskApproval }
  | { readonly inputRequired: InputRequiredResult }
  | { readonly refused: string };

/**
 * The consent gate: when policy would ask about this call, the calling client is asked
 * ("allow <server>.<tool> with …?") before any upstream work — as an `input_required`
 * result (2026-07-28), which the SDK turns into an `elicitation/create` on a 2025 session.
 * A client that cannot show a question is refused: consent fails closed.
 */
async function consentFor(
  options: GatewayServerOptions,
  server: Server,
  entry: CatalogTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
): Promise<Consent> {
  if (options.consent === 'off') return {};
  const decision = await options.host.governor.decision(entry, options.principal.id);
  if (decision.verdict !== 'ask') return {};
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONSENT_KEY);
  if (answer.kind === 'missing') {
    if (!clientCanElicit(server, ctx)) {
      return {
        refused: `${entry.server}.${entry.tool.name} needs your consent (${decision.reason}), but this client cannot ask you (it does not support elicitation); the call was refused. Use a client with elicitation, or have the gateway's operator allow the tool.`,
      };
    }
    const preview = JSON.stringify(args);
    return {
      inputRequired: inputRequired({
        inputRequests: {
          [CONSENT_KEY]: inputRequired.elicit({
            message: `Allow ${entry.server}.${entry.tool.name} with ${preview.length > 300 ? `${preview.slice(0, 299)}…` : preview}? (${decision.reason})`,
            requestedSchema: { type: 'object', properties: {} },
          }),
        },
      }),
    };
  }
  const accepted = answer.kind === 'elicit' && answer.action === 'accept';
  return {
    askApproval: async () =>
      accepted ? { approved: true, always: false } : { approved: false, reason: 'the client declined' },
  };
}

function clientCanElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()) as
    | ClientCapabilities
    | undefined;
  return capabilities?.elicitation !== undefined;
}

/**
 * The calling client as the answerer of the upstream's elicitation and sampling requests
 * during the call, on a 2025-era connection (the request goes to the client related to the
 * call). A 2026-07-28 client cannot be asked mid-call (its requests are answered with
 * `input_required` results instead): those requests go to the host's Inbox.
 */
function callerOf(server: Server, ctx: ServerContext): Caller | undefined {
  if (ctx.mcpReq.envelope !== undefined) return undefined;
  const capabilities = server.getClientCapabilities();
  const elicit = capabilities?.elicitation !== undefined;
  const sample = capabilities?.sampling !== undefined;
  if (!elicit && !sample) return undefined;
  return {
    ...(elicit && { elicit: (params: ElicitationParams) => ctx.mcpReq.elicitInput(params) }),
    ...(sample && {
      sample: async (params: SamplingParams) =>
        (await ctx.mcpReq.requestSampling(params)) as CreateMessageResult,
    }),
  };
}

async function callUpstream(
  options: GatewayServerOptions,
  server: Server,
  entry: CatalogTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
  askApproval: AskApproval | undefined,
): Promise<CallToolResult> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  // The server's log notifications while the call runs reach the calling client (a server
  // with several calls at once cannot say which call a line belongs to: each caller sees all).
  const relayLog = (line: LogEntry) => {
    if (line.server !== entry.server || line.source !== 'server') return;
    void ctx.mcpReq
      .notify({
        method: 'notifications/message',
        params: {
          level: line.level as LoggingLevel,
          data: line.text,
          ...(line.logger && { logger: line.logger }),
        },
      })
      .catch(() => undefined);
  };
  options.host.on('log', relayLog);
  const caller = callerOf(server, ctx);
  try {
    const result = await options.host.callTool(entry.name, args, {
      session: options.principal.id,
      signal: ctx.mcpReq.signal,
      ...(askApproval && { askApproval }),
      ...(caller && { caller }),
      ...(progressToken !== undefined && {
        onProgress: (progress) =>
          void ctx.mcpReq
            .notify({ method: 'notifications/progress', params: { progressToken, ...progress } })
            .catch(() => undefined),
      }),
    });
    return result.raw;
  } catch (error) {
    // Policy and approval outcomes are answers the model should read; the rest are errors.
    if (isSwitchboardError(error, 'POLICY_DENIED') || isSwitchboardError(error, 'APPROVAL_DECLINED')) {
      return errorResult(error.message);
    }
    throw toProtocolError(error);
  } finally {
    options.host.off('log', relayLog);
  }
}

async function forwarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toProtocolError(error);
  }
}

/** An upstream's JSON-RPC error keeps its code across the hop; our own errors become internal errors with their message. */
function toProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (isSwitchboardError(error)) {
    const rpc = error.details.rpcCode;
    // The upstream's error data (a not-found resource's `uri`, SEP-2164) crosses the hop too.
    const data = error.details.rpcData ?? { code: error.code };
    return new ProtocolError(
      typeof rpc === 'number' ? rpc : ProtocolErrorCode.InternalError,
      error.message,
      data,
    );
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, describeError(error));
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
