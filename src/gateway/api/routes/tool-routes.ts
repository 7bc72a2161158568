import { z } from 'zod';
import type { ToolResult } from '../../../client/results.js';
import { toolUi } from '../../../core/mcp-apps.js';
import { appReferenceOf } from '../../../host/apps/app-views.js';
import type { CatalogTool } from '../../../host/catalog/catalog.js';
import { qualifiedToolName } from '../../../host/catalog/tool-names.js';
import type { Host } from '../../../host/host.js';
import type { InboxItem } from '../../../host/inbox/inbox.js';
import type { Principal } from '../../http/context.js';
import { ApiProblem, refuseOversizedInput } from '../api-errors.js';
import { apiCallResultSchema, apiToolListSchema, apiToolSchema, toolCallBody } from '../api-schemas.js';
import type { ApiCallResult, ApiTool } from '../api-types.js';
import type { LastAppResults } from '../app-results.js';
import { apiContents } from '../content-view.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { forbidden, serverFor, unavailable } from '../server-view.js';

/**
 * `/api/tools`: the catalog's tools the caller may use, and calling one. A call runs the
 * host's governed path like any other — policy, approvals through the Inbox, audit — in the
 * caller's dashboard session, and is cancelled when the request is (the browser went away).
 */

const TOOL = { name: 'The catalog name, `mcp__<server>__<tool>`.' };

const toolsQuery = z.strictObject({
  server: z.string().optional().describe('Only the tools of this server.'),
  q: z
    .string()
    .max(200)
    .optional()
    .describe('Only tools whose name, title or description contains this text (any case).'),
});

/** The routes of `/api/tools`. */
export function toolRoutes({ host, settings }: ApiDeps, lastResults?: LastAppResults): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/tools',
      tag: 'tools',
      summary: 'List the tools',
      query: toolsQuery,
      responses: { 200: { description: 'The tools the caller may use.', schema: apiToolListSchema } },
      handle: async ({ query, caller }) => {
        if (query.server !== undefined) serverFor(host, caller.principal, query.server);
        const needle = query.q?.toLowerCase();
        const tools = host
          .catalog()
          .tools.filter((t) => caller.principal.allows(t.server, t.tool.name))
          .filter((t) => query.server === undefined || t.server === query.server)
          .filter((t) => needle === undefined || matches(t, needle))
          .map(toApiTool);
        return json({ tools });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/tools/{name}',
      tag: 'tools',
      summary: 'One tool',
      params: TOOL,
      responses: { 200: { description: 'The tool.', schema: apiToolSchema } },
      handle: async ({ params, caller }) => json(toApiTool(toolFor(host, caller.principal, params.name!))),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/tools/{name}/call',
      tag: 'tools',
      summary: 'Call a tool',
      description:
        'Runs under policy: a call that asks for approval waits in the Inbox (answer it with POST /api/inbox/{id}) ' +
        'while a dashboard listens on /api/stream, and is declined at once otherwise; while it waits, the request ' +
        "may outlast the gateway's request timeout, up to the item's deadline plus that timeout. A tool that fails " +
        'answers 200 with isError; a call that could not run answers with an error status.',
      params: TOOL,
      body: toolCallBody,
      responses: {
        200: { description: 'The result, media saved under /media.', schema: apiCallResultSchema },
      },
      handle: async ({ ctx, params, body, caller }) => {
        const tool = toolFor(host, caller.principal, params.name!);
        refuseOversizedInput(body.arguments ?? {}, settings.limits);
        const started = performance.now();
        // Time waiting for a person is not the call's: an approval or a question of this
        // caller's session extends the request to the item's deadline, plus the usual timeout.
        const waiting = (item: InboxItem) => {
          if (item.session !== caller.session) return;
          ctx.extendTimeout?.(item.deadline.getTime() - Date.now() + settings.limits.requestTimeoutMs);
        };
        host.inbox.on('queued', waiting);
        let result: ToolResult;
        try {
          result = await host.callTool(tool.name, body.arguments ?? {}, {
            session: caller.session,
            signal: ctx.signal,
          });
        } finally {
          host.inbox.off('queued', waiting);
        }
        // A tool with a view: the dashboard renders the result in it (docs/apps.md).
        const view = appReferenceOf(tool);
        const app = view && {
          ...view,
          input: body.arguments ?? {},
          result: result.raw as Record<string, unknown>,
        };
        if (app) lastResults?.note(caller.session, app);
        const answer: ApiCallResult = {
          isError: result.isError,
          content: await apiContents(host, Array.isArray(result.raw.content) ? result.raw.content : []),
          ...(result.raw.structuredContent !== undefined && {
            structuredContent: result.raw.structuredContent,
          }),
          ms: Math.round((performance.now() - started) * 10) / 10,
          ...(app && { app }),
        };
        return json(answer);
      },
    }),
  ];
}

/**
 * The catalog tool called `name`, if the caller may use it. A name that is not in the catalog
 * because its server is not connected gets that server's state and what to do, not a 404.
 */
function toolFor(host: Host, principal: Principal, name: string): CatalogTool {
  const tool = host.catalog().lookup(name);
  if (tool) {
    if (!principal.allows(tool.server, tool.tool.name)) throw forbidden(`the tool ${name}`, principal);
    return tool;
  }
  const down = host
    .servers()
    .find((s) => s.state !== 'connected' && name.startsWith(qualifiedToolName(s.name, '')));
  if (down && principal.allows(down.name)) throw unavailable(down, host);
  throw new ApiProblem(
    404,
    'NOT_FOUND',
    `No tool "${name}" in the catalog. GET /api/tools lists the tools.`,
    {
      details: { tool: name },
    },
  );
}

function matches(tool: CatalogTool, needle: string): boolean {
  const { title, description } = tool.tool;
  return [tool.name, tool.tool.name, title, description].some((text) => text?.toLowerCase().includes(needle));
}

function toApiTool(tool: CatalogTool): ApiTool {
  const t = tool.tool;
  return {
    name: tool.name,
    server: tool.server,
    tool: t.name,
    ...(t.title !== undefined && { title: t.title }),
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: t.inputSchema as Record<string, unknown>,
    ...(t.outputSchema !== undefined && { outputSchema: t.outputSchema as Record<string, unknown> }),
    ...(t.annotations !== undefined && { annotations: t.annotations as Record<string, unknown> }),
    ...(t._meta?.ui !== undefined && { app: toolUi(t) }),
  };
}
