import type { ContentBlock } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { Host } from '../../../host/host.js';
import type { Principal } from '../../http/context.js';
import { ApiProblem, refuseOversizedInput } from '../api-errors.js';
import {
  apiPromptListSchema,
  apiPromptResultSchema,
  apiResourceContentsSchema,
  apiResourceListSchema,
  promptGetBody,
} from '../api-schemas.js';
import type { ApiPrompt, ApiPromptMessage, ApiResource, ApiResourceTemplate } from '../api-types.js';
import { apiContents } from '../content-view.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { connectedServer, serverFor } from '../server-view.js';

/**
 * `/api/resources` and `/api/prompts`: what the connected servers offer besides tools, as the
 * catalog has it, and reading a resource or getting a prompt from its server. Resources and
 * prompts are data, so no approval is asked; text a server sends is guarded by the host as
 * for any other client.
 */

const serverQuery = z.strictObject({ server: z.string().optional().describe('Only this server.') });
const readQuery = z.strictObject({
  uri: z.string().min(1).describe('The resource URI.'),
  server: z
    .string()
    .optional()
    .describe('The server to read it from; needed only when the URI is not listed by exactly one server.'),
});

/** The routes of `/api/resources` and `/api/prompts`. */
export function catalogRoutes({ host, settings }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/resources',
      tag: 'resources',
      summary: 'List resources and resource templates',
      query: serverQuery,
      responses: { 200: { description: 'What the servers offer.', schema: apiResourceListSchema } },
      handle: async ({ query, caller }) => {
        const mine = within(host, caller.principal, query.server);
        const catalog = host.catalog();
        const resources: ApiResource[] = catalog.resources.filter(mine).map(({ server, item }) => ({
          server,
          uri: item.uri,
          name: item.name,
          ...(item.title !== undefined && { title: item.title }),
          ...(item.description !== undefined && { description: item.description }),
          ...(item.mimeType !== undefined && { mimeType: item.mimeType }),
        }));
        const templates: ApiResourceTemplate[] = catalog.resourceTemplates
          .filter(mine)
          .map(({ server, item }) => ({
            server,
            uriTemplate: item.uriTemplate,
            name: item.name,
            ...(item.description !== undefined && { description: item.description }),
            ...(item.mimeType !== undefined && { mimeType: item.mimeType }),
          }));
        return json({ resources, templates });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/resources/read',
      tag: 'resources',
      summary: 'Read a resource',
      query: readQuery,
      responses: {
        200: { description: 'Its contents, media saved under /media.', schema: apiResourceContentsSchema },
      },
      handle: async ({ ctx, query, caller }) => {
        refuseOversizedInput({ uri: query.uri }, settings.limits);
        const server = query.server ?? serverOfUri(host, caller.principal, query.uri);
        connectedServer(host, caller.principal, server);
        const result = await host.readResource(server, query.uri, {
          signal: ctx.signal,
          session: caller.session,
        });
        const blocks = result.contents.map((resource): ContentBlock => ({ type: 'resource', resource }));
        return json({ contents: await apiContents(host, blocks) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/prompts',
      tag: 'prompts',
      summary: 'List prompts',
      query: serverQuery,
      responses: { 200: { description: 'The prompts the servers offer.', schema: apiPromptListSchema } },
      handle: async ({ query, caller }) => {
        const prompts: ApiPrompt[] = host
          .catalog()
          .prompts.filter(within(host, caller.principal, query.server))
          .map(({ server, item }) => ({
            server,
            name: item.name,
            ...(item.title !== undefined && { title: item.title }),
            ...(item.description !== undefined && { description: item.description }),
            arguments: (item.arguments ?? []).map((a) => ({
              name: a.name,
              ...(a.description !== undefined && { description: a.description }),
              ...(a.required !== undefined && { required: a.required }),
            })),
          }));
        return json({ prompts });
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/prompts/{server}/{name}',
      tag: 'prompts',
      summary: "Get a prompt's messages",
      params: { server: 'The server offering the prompt.', name: 'The prompt name.' },
      body: promptGetBody,
      responses: {
        200: { description: 'The messages, media saved under /media.', schema: apiPromptResultSchema },
      },
      handle: async ({ ctx, params, body, caller }) => {
        const server = params.server!;
        const name = params.name!;
        refuseOversizedInput(body.arguments ?? {}, settings.limits);
        connectedServer(host, caller.principal, server);
        if (!host.catalog().prompts.some((p) => p.server === server && p.item.name === name)) {
          throw new ApiProblem(
            404,
            'NOT_FOUND',
            `Server "${server}" offers no prompt "${name}". GET /api/prompts lists the prompts.`,
            { details: { server, prompt: name } },
          );
        }
        const result = await host.getPrompt(server, name, body.arguments ?? {}, {
          signal: ctx.signal,
          session: caller.session,
        });
        const contents = await apiContents(
          host,
          result.messages.map((m) => m.content),
        );
        const messages: ApiPromptMessage[] = result.messages.map((m, i) => ({
          role: m.role,
          content: contents[i]!,
        }));
        return json({
          ...(result.description !== undefined && { description: result.description }),
          messages,
        });
      },
    }),
  ];
}

/** A filter for items of the servers the caller may see (only `server` when given, which must exist). */
function within(host: Host, principal: Principal, server: string | undefined) {
  if (server !== undefined) serverFor(host, principal, server);
  return (entry: { readonly server: string }) =>
    (server === undefined || entry.server === server) && principal.allows(entry.server);
}

/**
 * The server to read `uri` from when the request did not say: the one server that lists it,
 * else the one whose templates fit it. Several, or none, is the caller's to settle (`server`).
 */
function serverOfUri(host: Host, principal: Principal, uri: string): string {
  const catalog = host.catalog();
  let servers = new Set(catalog.resources.filter((r) => r.item.uri === uri).map((r) => r.server));
  if (servers.size === 0)
    servers = new Set(
      catalog.resourceTemplates.filter((t) => fitsTemplate(t.item.uriTemplate, uri)).map((t) => t.server),
    );
  const allowed = [...servers].filter((s) => principal.allows(s));
  if (allowed.length === 1) return allowed[0]!;
  if (allowed.length === 0) {
    throw new ApiProblem(
      404,
      'NOT_FOUND',
      `No server lists the resource "${uri}". Give the server to read it from as the "server" parameter.`,
      { details: { uri } },
    );
  }
  throw new ApiProblem(
    400,
    'INVALID_REQUEST',
    `The resource "${uri}" is offered by ${allowed.map((s) => `"${s}"`).join(' and ')}. Say which with the "server" parameter.`,
    { details: { field: 'server', uri, servers: allowed } },
  );
}

/** Whether `uri` fits a URI template (RFC 6570): each `{…}` expression stands for any text. */
export function fitsTemplate(template: string, uri: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${pattern}$`).test(uri);
}
