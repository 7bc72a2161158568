import { z } from 'zod';
import { requestSchemas, responseSchemas, type SchemaMeta } from './api-schemas.js';
import { CSRF_HEADER } from './csrf.js';
import type { ApiRoute } from './route.js';
import { pathParams } from './router.js';

/**
 * The OpenAPI 3.1 document of the API (`GET /api/openapi.json`), made from the routes
 * themselves: their paths, parameters and summaries, and JSON Schemas generated from the zod
 * schemas the API validates requests with and describes responses by (api-schemas.ts). A
 * route cannot be served without being described, nor described without being served.
 */

type Json = Record<string, unknown>;

const REF = (id: string) => `#/components/schemas/${id}`;
const ERROR_REF = { $ref: '#/components/responses/Error' };

/** The document for `routes`, with `version` as the API's version. */
export function openApiDocument(routes: readonly ApiRoute[], info: { readonly version: string }): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard dashboard API',
      version: info.version,
      description:
        'The HTTP API the Switchboard dashboard uses: servers, tools, resources, prompts, the inbox, events, ' +
        `logs and the audit log. POST, PUT, PATCH and DELETE need the header ${CSRF_HEADER} with the token of ` +
        'GET /api/session, unless the request carries Authorization. Every error has the ApiError body.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: { ...components(responseSchemas, 'output'), ...components(requestSchemas, 'input') },
      responses: {
        Error: {
          description: 'Any failure (status ≥ 400): what went wrong and what to do.',
          content: { 'application/json': { schema: { $ref: REF('ApiError') } } },
        },
      },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'When the gateway checks tokens (auth mode bearer or jwt).',
        },
        csrf: {
          type: 'apiKey',
          in: 'header',
          name: CSRF_HEADER,
          description: 'The csrfToken of GET /api/session.',
        },
      },
    },
  };
}

function operation(route: ApiRoute): Json {
  const parameters: Json[] = pathParams(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: route.params?.[name] ?? name,
    schema: { type: 'string' },
  }));
  if (route.query) {
    for (const [name, field] of Object.entries(route.query.shape)) {
      const { description, ...schema } = strip(z.toJSONSchema(field as z.ZodType, { io: 'output' }));
      parameters.push({
        name,
        in: 'query',
        required: !(field as z.ZodType).safeParse(undefined).success,
        ...(typeof description === 'string' && { description }),
        schema,
      });
    }
  }
  const responses: Json = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const content = response.sse
      ? { 'text/event-stream': { schema: { type: 'string' } } }
      : response.schema && {
          'application/json': { schema: { $ref: REF(idOf(responseSchemas, response.schema)) } },
        };
    responses[status] = { description: response.description, ...(content && { content }) };
  }
  responses.default = ERROR_REF;
  const unsafe = route.method !== 'GET';
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description !== undefined && { description: route.description }),
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: REF(idOf(requestSchemas, route.body)) } } },
      },
    }),
    responses,
    // Either is enough: the CSRF token (loopback, no auth) or a bearer token.
    ...(unsafe && { security: [{ csrf: [] }, { bearer: [] }] }),
    ...(route.manage && { 'x-switchboard-manage': true }),
  };
}

/** The registered schemas of `registry` as JSON Schema, referring to one another by `$ref`. */
function components(registry: z.core.$ZodRegistry<SchemaMeta>, io: 'input' | 'output'): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, { io, uri: REF, target: 'draft-2020-12' }) as {
    schemas: Record<string, Json>;
  };
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, strip(schema)]));
}

function idOf(registry: z.core.$ZodRegistry<SchemaMeta>, schema: z.ZodType): string {
  const meta = registry.get(schema);
  if (!meta) throw new Error('A route uses a schema that is not registered in api-schemas.ts.');
  return meta.id;
}

/** A schema without the keywords that only a standalone document carries. */
function strip(schema: Json): Json {
  const { $schema: _s, $id: _i, id: _id, ...rest } = schema;
  return rest;
}

/** `getServers`, `postServersNameEnable`…: the method and the path's words. */
function operationId(route: ApiRoute): string {
  const words = route.path
    .split('/')
    .filter((s) => s !== '' && s !== 'api')
    .map((s) => s.replace(/[{}.]/g, ''))
    .map((s) => s.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_, _sep, c: string) => c.toUpperCase()));
  return `${route.method.toLowerCase()}${words.join('')}`;
}
