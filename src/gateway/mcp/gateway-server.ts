import {
  type GetPromptResult,
  type LoggingLevel,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { DEFAULT_GATEWAY } from '../../core/config/gateway-config.js';
import { APPS_EXTENSION } from '../../core/mcp-apps.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import type { Host } from '../../host/host.js';
import { MANAGEMENT_SERVER, runManagementTool } from '../../host/management/management-tools.js';
import { TaskLedger } from '../tasks/task-ledger.js';
import { tasksOffered } from '../tasks/task-policy.js';
import {
  appOnlyRefusal,
  appsServerCapability,
  callableBy,
  callerDeclaresApps,
  GatewayMcpServer,
  listedTools,
  viewScope,
  viewServer,
} from './app-routes.js';
import { consentFor } from './consent-gate.js';
import { type ExposedPrompt, exposeFilter, type NamingMode } from './exposed-names.js';
import { type ExposedSkills, skillSubject } from './exposed-skills.js';
import type { Idempotency } from './idempotency.js';
import { checkInputCaps, type InputLimits, refuseOversized } from './input-caps.js';
import { OpenedViews } from './opened-views.js';
import { completeOwnTemplate } from './own-resources.js';
import { parkToolCall } from './parked-tool-call.js';
import { argumentsDigest, type RelayState, relayStateCodec, relayStateKey } from './relay-state.js';
import { registerResourceRoutes } from './resource-routes.js';
import {
  EVERY_SKILL,
  type GatewayPrincipal,
  servedPrompts,
  servedSkills,
  servedTools,
} from './served-catalog.js';
import { type SettledCall, settledCallOf } from './settled-call.js';
import { registerSkillRoutes, SKILLS_EXTENSION } from './skill-routes.js';
import { untilStarted } from './startup-wait.js';
import { callAsTask, withOfferedTaskSupport } from './task-calls.js';
import {
  keepingTasks,
  registerTaskRoutes,
  TASKS_EXTENSION,
  TaskAnswer,
  throwingTasks,
} from './task-routes.js';
import { unservedPrompt, unservedTool } from './unserved.js';
import {
  callUpstream,
  errorResult,
  forwarded,
  logThreshold,
  nextRound,
  pinnedHere,
  type RelayOptions,
  relayedAnswer,
  relayedParts,
  relayToolCall,
  roundState,
  type ToolAnswer,
  toProtocolError,
} from './upstream-calls.js';
import { GATEWAY_SERVER_INFO } from './wire-result.js';

/**
 * One MCP server instance over the governed catalog, for one principal: what the gateway
 * serves per legacy session or per modern request. Tools, resources, resource templates and
 * prompts of the upstream servers (through the expose allow-lists and the principal's own),
 * the gateway's own status resources, and every call through the host's governed path —
 * with a consent question to the calling client when policy asks, progress relayed, and the
 * client's cancellation passed upstream.
 */

export interface GatewayServerOptions {
  readonly host: Host;
  readonly principal: GatewayPrincipal;
  readonly naming: NamingMode;
  /** Globs: tools and prompts as `server/name`, resources by URI, skills as `server/<skill path>`. */
  readonly expose: {
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly prompts: readonly string[];
    /** Absent: every skill. */
    readonly skills?: readonly string[];
  };
  /** `on`: a call policy asks about is put to the calling client first; `off`: the host's Inbox decides. */
  readonly consent: 'on' | 'off';
  readonly limits: InputLimits;
  readonly idempotency: Idempotency<ToolAnswer>;
  /**
   * Seals what a 2026-07-28 call keeps between its rounds (relay-state.ts). Default: one codec
   * per process with a random key (rounds must then come back to this process).
   */
  readonly relayState?: RequestStateCodec<RelayState>;
  /**
   * Serve the management tools (register, delete, toggle, list servers: host/management) as
   * tools of the server "switchboard", through `expose` and the principal's allow-lists like
   * any tool, and under policy and consent. Off unless the operator turns it on.
   */
  readonly management?: boolean;
  /**
   * The gateway's tasks (tasks/task-ledger.ts). Default: one ledger per host with the default
   * settings, for gateways built without one.
   */
  readonly tasks?: TaskLedger;
  /**
   * Which servers' views each caller has read (opened-views.ts): what lets a view call its
   * own server's app-only tools. Default: one per host, so a principal's 2026-07-28 requests,
   * each served by a server of its own, share it.
   */
  readonly openedViews?: OpenedViews;
  /**
   * This gateway as one replica of several (docs/replicas.md): a multi-round call whose next
   * round only this replica can serve — a parked call, or a round of a server it runs itself
   * (`pins`: a stdio server) — names it in its `requestState`, and the others relay that round
   * here (placed-rounds.ts). Absent: one gateway.
   */
  readonly replica?: { readonly id: string; readonly pins: (server: string) => boolean };
}

let processCodec: RequestStateCodec<RelayState> | undefined;
const hostLedgers = new WeakMap<Host, TaskLedger>();
const hostViews = new WeakMap<Host, OpenedViews>();

/** The opened views of a gateway built without its own: one per host. */
function defaultViews(host: Host): OpenedViews {
  let views = hostViews.get(host);
  if (views === undefined) {
    views = new OpenedViews();
    hostViews.set(host, views);
  }
  return views;
}

/** The ledger of a gateway built without one: one per host, default settings. */
function defaultLedger(host: Host): TaskLedger {
  let ledger = hostLedgers.get(host);
  if (ledger === undefined) {
    ledger = new TaskLedger({ repository: host.tasks, settings: DEFAULT_GATEWAY.tasks });
    hostLedgers.set(host, ledger);
  }
  return ledger;
}

export function createGatewayServer(input: GatewayServerOptions): Server {
  processCodec ??= relayStateCodec(relayStateKey());
  const options = {
    ...input,
    relayState: input.relayState ?? processCodec,
    tasks: input.tasks ?? defaultLedger(input.host),
    openedViews: input.openedViews ?? defaultViews(input.host),
  };
  const { host, principal } = options;
  const promptFilter = exposeFilter(options.expose.prompts);
  const offers = offeredKinds(options.expose);
  // Tasks in both forms: 2025-11-25's capability (left out of server/discover, task-routes.ts) and the extension.
  const tasks = offers.tools && tasksOffered(host);
  const extensions = {
    ...(tasks && { [TASKS_EXTENSION]: {} }),
    // Declared whatever the upstreams offer now (an empty listing is allowed), so a session
    // opened while its servers still connect has their skills once they are there.
    ...(offers.skills && { [SKILLS_EXTENSION]: { directoryRead: true } }),
    // Declared to the clients that declare it (app-routes.ts), when the host renders apps.
    ...(host.rendersApps && { [APPS_EXTENSION]: appsServerCapability() }),
  };
  const server = new GatewayMcpServer(
    { ...GATEWAY_SERVER_INFO },
    {
      instructions: 'Switchboard: the tools, resources and prompts of several MCP servers, governed.',
      capabilities: {
        ...(offers.tools && { tools: { listChanged: true } }),
        // Always: the gateway's own status resources are there whatever `expose` lets through.
        resources: { listChanged: true, subscribe: true },
        ...(offers.prompts && { prompts: { listChanged: true } }),
        completions: {},
        logging: {},
        ...(tasks && { tasks: { cancel: {}, requests: { tools: { call: {} } } } }),
        ...(Object.keys(extensions).length > 0 && { extensions }),
      },
      requestState: { verify: (state, ctx) => options.relayState.verify(state, ctx) },
    },
  );

  const tools = () =>
    servedTools(host, principal, options.naming, options.expose.tools, options.management === true);
  const prompts = () => servedPrompts(host.catalog(), principal, options.naming, promptFilter);
  const skills = offers.skills ? servedSkillsOf(options) : undefined;
  const resources = registerResourceRoutes(server, {
    host,
    allows: (name) => principal.allows(name),
    session: principal.id,
    expose: options.expose.resources,
    limits: options.limits,
    apps: {
      declared: (ctx) => callerDeclaresApps(server, ctx),
      viewServer: (uri) => viewServer(tools(), uri),
      read: (ctx, viewOf) => options.openedViews.open(viewScope(server, ctx, principal.id), viewOf),
    },
    ...(skills && { skills }),
  });
  if (skills) {
    const keep = exposeFilter(options.expose.skills ?? EVERY_SKILL);
    registerSkillRoutes(server, {
      host,
      allows: (name) => principal.allows(name),
      keeps: (name, root) => keep(skillSubject(name, root)),
      served: skills,
      session: principal.id,
      limits: options.limits,
    });
  }

  // Without the capability the methods are not there at all: the SDK answers them -32601
  // (method not found), and it refuses to register a handler for a capability not declared.
  if (offers.tools) registerToolRoutes(server, options, tools);
  // A 2025 session's threshold for the upstream log lines relayed during its calls.
  server.setRequestHandler('logging/setLevel', (request) => {
    sessionLogLevels.set(server, request.params.level);
    return {};
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    refuseOversized({ argument: request.params.argument, context: request.params.context }, options.limits);
    const ref = request.params.ref as { type: string; name?: string; uri?: string };
    if (ref.type === 'ref/resource') {
      // The gateway's own template completes with the servers this caller sees, and no others.
      const own = completeOwnTemplate(host, principal, ref.uri ?? '', request.params.argument);
      if (own) return { completion: own };
    }
    const owner =
      ref.type === 'ref/prompt' ? prompts().get(ref.name ?? '') : resources.template(ref.uri ?? '');
    if (!owner) return { completion: { values: [], hasMore: false } };
    const upstreamRef =
      'prompt' in owner ? { ...ref, name: owner.prompt.name } : { ...ref, uri: owner.item.uriTemplate };
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

  if (offers.prompts) registerPromptRoutes(server, options, prompts);

  registerTaskRoutes(server, {
    host,
    ledger: options.tasks,
    principal: principal.id,
    allows: (name) => principal.allows(name),
    relayed: relayedParts,
    fail: (error) => {
      throw toProtocolError(error);
    },
  });

  return server;
}

/**
 * Which kinds the gateway offers under `expose`: tools and prompts only when some glob may
 * let one through (an empty list exposes none, so the capability is left out and their
 * methods answer -32601, MCP "Lifecycle", capability negotiation); the same for the Skills
 * extension, `skills: []`. Resources are always offered, for the gateway's own.
 */
export function offeredKinds(expose: GatewayServerOptions['expose']): {
  readonly tools: boolean;
  readonly prompts: boolean;
  readonly skills: boolean;
} {
  return {
    tools: expose.tools.length > 0,
    prompts: expose.prompts.length > 0,
    skills: (expose.skills ?? EVERY_SKILL).length > 0,
  };
}

/** The skills `options.principal` is served now (memoized per catalog snapshot: served-catalog.ts). */
function servedSkillsOf(options: GatewayServerOptions): () => ExposedSkills {
  return () => servedSkills(options.host.catalog(), options.principal, options.naming, options.expose.skills);
}

/** `tools/list` and `tools/call`. */
function registerToolRoutes(
  server: Server,
  options: RelayOptions,
  tools: () => Map<string, CatalogTool>,
): void {
  const { host, principal } = options;
  server.setRequestHandler('tools/list', async (_request, ctx) => {
    // The first lists wait for the servers still coming up (startup-wait.ts).
    await untilStarted(host);
    const served = tools();
    const listed = listedTools(served, callerDeclaresApps(server, ctx));
    // A 2025 session reads which tools may run as tasks from each tool (2025-11-25 §Tool-Level Negotiation).
    return {
      tools: ctx.mcpReq.envelope === undefined ? withOfferedTaskSupport(options, listed, served) : listed,
    };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const settled = settledCallOf(ctx);
    if (settled) return answerSettled(options, ctx, { name, args, settled });
    // A name not served yet, while the servers are still coming up, is looked up once they are.
    if (!tools().has(name)) await untilStarted(host);
    const served = tools().get(name);
    // An app-only tool is not there for a client that does not speak MCP Apps (app-routes.ts).
    const entry = served && callableBy(served, callerDeclaresApps(server, ctx)) ? served : undefined;
    if (!entry)
      throw unservedTool(host, { principal, naming: options.naming, expose: options.expose.tools }, name);
    const tooBig = checkInputCaps(args, options.limits);
    if (tooBig) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Refused: ${tooBig}.`);
    // An app-only tool is for a view of its own server: one this caller has read (app-routes.ts).
    const refused = await appOnlyRefusal(host, {
      views: options.openedViews,
      scope: viewScope(server, ctx, principal.id),
      entry,
      name,
      session: principal.id,
    });
    if (refused !== undefined) return errorResult(refused);
    const state = roundState(ctx, name, args, options.replica?.id);
    const consent = await consentFor(
      { host, principal: principal.id, mode: options.consent, consentedBefore: state?.c === true },
      server,
      entry,
      args,
      ctx,
    );
    if ('inputRequired' in consent) return consent.inputRequired;
    if ('refused' in consent) return errorResult(consent.refused);
    if (entry.server === MANAGEMENT_SERVER) {
      return runManagementTool(host, entry.tool.name, args, {
        session: principal.id,
        // `list_mcp` lists the servers this caller sees, as the API's server list does.
        visible: (server) => principal.allows(server),
        signal: ctx.mcpReq.signal,
        source: 'gateway',
        ...(consent.askApproval && { askApproval: consent.askApproval }),
      });
    }
    const relayed = relayedParts(ctx);
    const logLevel = logThreshold(ctx, sessionLogLevels.get(server));
    // A 2026-07-28 client: a 2026-07-28 upstream's rounds are relayed; a 2025-era upstream's
    // mid-call requests are parked and become rounds. A 2025 session is asked live.
    const era = host.upstreamProtocol(entry.server).era;
    const asTask = {
      name,
      args,
      ctx,
      task: request.params.task,
      relayed,
      round: state !== undefined,
      askApproval: consent.askApproval,
      logLevel,
    };
    // A call may become a task the gateway runs (task-calls.ts); a created task is kept by
    // idempotency like any answer, so a retry with the same key gets the same task.
    const run = (): Promise<ToolAnswer> =>
      keepingTasks(async () => {
        const task = await callAsTask(options, server, entry, asTask);
        if (task) return task;
        return relayed && era === 'modern'
          ? relayToolCall(options, entry, { name, args, ctx, consent, relayed, state, logLevel })
          : relayed && era === 'legacy'
            ? parkToolCall(options, server, entry, { name, args, ctx, consent, relayed, state, logLevel })
            : callUpstream(options, server, entry, { args, ctx, askApproval: consent.askApproval, logLevel });
      });
    const key = ctx.mcpReq._meta?.idempotencyKey;
    // A round of a multi-round call is its own request: the key is scoped to the round.
    const round = argumentsDigest([state ?? null, ctx.mcpReq.inputResponses ?? null]);
    return throwingTasks(
      await (typeof key === 'string' && key.length > 0 && key.length <= 200
        ? options.idempotency.run(principal.id, `${key}\u0000${round}`, run)
        : run()),
    );
  });
}

/** `prompts/list` and `prompts/get`. */
function registerPromptRoutes(
  server: Server,
  options: RelayOptions,
  prompts: () => Map<string, ExposedPrompt<Prompt>>,
): void {
  const { host } = options;
  const promptView = {
    principal: options.principal,
    naming: options.naming,
    keep: exposeFilter(options.expose.prompts),
  };
  server.setRequestHandler('prompts/list', async () => {
    await untilStarted(host);
    return { prompts: [...prompts()].map(([name, p]) => ({ ...p.prompt, name })) };
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    if (!prompts().has(request.params.name)) await untilStarted(host);
    const found = prompts().get(request.params.name);
    if (!found) throw unservedPrompt(host, promptView, request.params.name);
    const args = request.params.arguments ?? {};
    refuseOversized(args, options.limits);
    const relayed = relayedParts(ctx);
    if (!relayed || host.upstreamProtocol(found.server).era !== 'modern') {
      return forwarded(() =>
        host.getPrompt(found.server, found.prompt.name, args, {
          signal: ctx.mcpReq.signal,
          session: options.principal.id,
        }),
      );
    }
    const state = roundState(ctx, request.params.name, args, options.replica?.id);
    const answer = await forwarded(() =>
      host.relayRequest(
        found.server,
        'prompts/get',
        { name: found.prompt.name, arguments: args },
        { ...relayed, ...(state?.u !== undefined && { requestState: state.u }) },
        { signal: ctx.mcpReq.signal, session: options.principal.id },
      ),
    );
    if (answer.kind !== 'input_required') return answer.raw as GetPromptResult;
    return nextRound(options, ctx, answer.raw, {
      n: request.params.name,
      h: argumentsDigest(args),
      ...pinnedHere(options, found.server),
    });
  });
}

/**
 * The answer to a call the fast path already ran upstream (settled-call.ts): what the full
 * path's own call would have answered with the same upstream answer or failure.
 */
/** Each session server's `logging/setLevel`, for the session fast path (fast-session-call.ts). */
const sessionLogLevels = new WeakMap<Server, LoggingLevel>();

/** The log level a 2025 session set with `logging/setLevel`, if it did. */
export function sessionLogLevel(server: Server): LoggingLevel | undefined {
  return sessionLogLevels.get(server);
}

async function answerSettled(
  options: RelayOptions,
  ctx: ServerContext,
  call: { readonly name: string; readonly args: Record<string, unknown>; readonly settled: SettledCall },
): Promise<ToolAnswer> {
  const { settled } = call;
  if (settled.kind === 'failed') throw settled.error;
  if (settled.kind === 'result') return settled.result;
  try {
    return await relayedAnswer(options, settled.entry, { ...call, ctx, consent: {}, answer: settled.answer });
  } catch (error) {
    if (error instanceof TaskAnswer) throw error;
    throw toProtocolError(error);
  }
}
