import { z } from 'zod';
import { isAppUri, toolUi } from '../../../core/mcp-apps.js';
import { domainVerdict, type SandboxSigner, sandboxDomain, sandboxLabel } from '../../ui/app-sandbox.js';
import { ApiProblem, refuseOversizedInput } from '../api-errors.js';
import {
  apiAppCallResultSchema,
  apiAppListSchema,
  apiAppViewSchema,
  jsonObject,
  requestSchemas,
} from '../api-schemas.js';
import type { ApiApp, ApiAppView } from '../api-types.js';
import type { LastAppResults } from '../app-results.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { connectedServer } from '../server-view.js';

/**
 * `/api/apps`: MCP Apps for the dashboard (docs/apps.md). The tools that have a view, each
 * with the caller's last result to open it with; a view's document with the CSP and
 * permissions it runs under and its server's own sandbox origin (the dashboard's sandbox
 * applies them; a declared `domain` is answered with what the host does with it); and the calls a view makes
 * back, which reach only its own server's tools whose visibility includes "app" (SEP-1865
 * §Visibility; the host refuses the rest, audited) under the caller's policy and audit.
 */

const viewQuery = z.strictObject({
  server: z.string().describe('The server whose view it is.'),
  uri: z.string().max(2048).describe('The `ui://` URI of the view.'),
});

const appCallBody = z
  .strictObject({
    server: z.string().describe('The server of the view making the call (the one it was rendered for).'),
    name: z.string().describe("The tool, by its own server's name for it (as the view knows it)."),
    arguments: jsonObject().optional().describe("The tool's arguments (default {})."),
  })
  .register(requestSchemas, { id: 'AppCall', description: "An MCP App view's tools/call." });

/** The routes of `/api/apps`. */
export function appRoutes(
  { host, settings }: ApiDeps,
  lastResults: LastAppResults,
  signer: SandboxSigner,
): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/apps',
      tag: 'apps',
      summary: 'List the tools with an MCP App view',
      responses: {
        200: { description: 'The tools with a view the caller may use.', schema: apiAppListSchema },
      },
      handle: async ({ caller }) => {
        const apps: ApiApp[] = [];
        for (const t of host.catalog().tools) {
          const { resourceUri, visibility } = toolUi(t.tool);
          // A view is opened from a tool someone calls, not from the app's own callbacks.
          if (resourceUri === undefined || !visibility.includes('model')) continue;
          if (!caller.principal.allows(t.server, t.tool.name)) continue;
          const last = lastResults.last(caller.session, t.name);
          apps.push({
            name: t.name,
            server: t.server,
            tool: t.tool.name,
            ...(t.tool.title !== undefined && { title: t.tool.title }),
            ...(t.tool.description !== undefined && { description: t.tool.description }),
            resourceUri,
            ...(last && { last }),
          });
        }
        return json({ apps });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/apps/view',
      tag: 'apps',
      summary: "An MCP App's view, ready for the sandbox",
      query: viewQuery,
      responses: { 200: { description: 'The document and its sandbox settings.', schema: apiAppViewSchema } },
      handle: async ({ query, caller }) => {
        if (!isAppUri(query.uri)) {
          throw new ApiProblem(400, 'INVALID_ARGUMENT', `"${query.uri}" is not a ui:// view URI.`, {
            details: { uri: query.uri },
          });
        }
        connectedServer(host, caller.principal, query.server);
        const view = await host.appView(query.server, query.uri);
        // Each server's views run on an origin of their own (ui/app-sandbox.ts).
        const verdict = domainVerdict(view.ui.domain, view.server);
        const answer: ApiAppView = {
          server: view.server,
          uri: view.uri,
          html: view.html,
          csp: view.csp,
          allow: view.allow,
          ...(view.ui.prefersBorder !== undefined && { prefersBorder: view.ui.prefersBorder }),
          sandbox: {
            domain: sandboxDomain(view.server),
            token: signer.sign(sandboxLabel(view.server), view.csp),
          },
          ...(view.ui.domain !== undefined && { domain: view.ui.domain }),
          ...(verdict && { domainHonoured: verdict.honoured, domainNotice: verdict.notice }),
        };
        return json(answer);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/apps/call',
      tag: 'apps',
      summary: "A view's tool call",
      description:
        'Runs a view\'s tools/call on its own server only, for a tool whose visibility includes "app" ' +
        '(403 POLICY_DENIED otherwise, audited), under policy like any call. Answers the result as the server ' +
        'returned it, for the view.',
      body: appCallBody,
      responses: {
        200: {
          description: 'The CallToolResult, as the server returned it.',
          schema: apiAppCallResultSchema,
        },
      },
      handle: async ({ ctx, body, caller }) => {
        refuseOversizedInput(body.arguments ?? {}, settings.limits);
        connectedServer(host, caller.principal, body.server);
        // By the view's own server and that server's name for the tool: no other server's
        // tool can be named at all (and the host refuses one that is, whatever the path).
        const entry = host.catalog().tools.find((t) => t.server === body.server && t.tool.name === body.name);
        if (!entry || !caller.principal.allows(entry.server, entry.tool.name)) {
          throw new ApiProblem(
            404,
            'NOT_FOUND',
            `Server "${body.server}" has no tool "${body.name}" for its view to call; a view calls its own server's tools by their own names.`,
            { details: { server: body.server, tool: body.name } },
          );
        }
        const result = await host.callTool(entry.name, body.arguments ?? {}, {
          session: caller.session,
          signal: ctx.signal,
          app: { server: body.server },
        });
        return json(result.raw as Record<string, unknown>);
      },
    }),
  ];
}
