import { apiSessionSchema } from '../api-schemas.js';
import type { ApiSession } from '../api-types.js';
import { openApiDocument } from '../openapi.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { switchboardVersion } from '../version.js';

/**
 * `/api/session`, who the API sees and the CSRF token for its state-changing requests, and
 * `/api/openapi.json`, the description of every route (`routes` is the whole list, this
 * route included).
 */
export function sessionRoutes({ csrf, mcpUrl }: ApiDeps, routes: () => readonly ApiRoute[]): ApiRoute[] {
  let document: string | undefined;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/session',
      tag: 'session',
      summary: 'Who the API sees, and the CSRF token',
      responses: { 200: { description: 'The session.', schema: apiSessionSchema } },
      handle: async ({ caller }) => {
        const session: ApiSession = {
          principal: caller.principal.id,
          csrfToken: csrf.token(caller.principal.id),
          mcpUrl: mcpUrl(),
          version: switchboardVersion(),
          canManage: caller.canManage,
        };
        return json(session);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/openapi.json',
      tag: 'session',
      summary: 'This API as an OpenAPI 3.1 document',
      responses: { 200: { description: 'The OpenAPI document.' } },
      handle: async () => {
        // The routes never change while the process runs: the document is made once.
        document ??= JSON.stringify(openApiDocument(routes(), { version: switchboardVersion() }));
        return new Response(document, { headers: { 'Content-Type': 'application/json' } });
      },
    }),
  ];
}
