import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { resolveGateway } from '../../../src/core/config/gateway-config.js';
import { createApiHandler } from '../../../src/gateway/api/api-handler.js';
import type * as schemas from '../../../src/gateway/api/api-schemas.js';
import type * as api from '../../../src/gateway/api/api-types.js';
import { createPrincipal } from '../../../src/gateway/http/principal.js';
import type { Host } from '../../../src/host/host.js';
import { contextFor } from '../http/harness.js';

/**
 * The OpenAPI document describes every route the router serves and nothing else, its
 * references resolve, and the zod schemas it is generated from have the shapes of the
 * contract in api-types.ts (checked by the compiler, both ways).
 */

/** `T` without `readonly` anywhere: the contract's types are read-only, zod's outputs are not. */
type Mutable<T> = T extends readonly (infer U)[]
  ? Mutable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Mutable<T[K]> }
    : T;
type Same<A, B> = [Mutable<A>] extends [Mutable<B>]
  ? [Mutable<B>] extends [Mutable<A>]
    ? true
    : false
  : false;
type Out<S extends z.ZodType> = z.output<S>;

describe('the OpenAPI document', () => {
  // Building the routes and the document touches no host: nothing here is served.
  const handler = createApiHandler({
    host: {} as Host,
    settings: resolveGateway({}),
    mcpUrl: () => 'http://127.0.0.1:7777/mcp',
  });

  async function document(): Promise<Record<string, unknown>> {
    const ctx = contextFor(new Request('http://127.0.0.1/api/openapi.json'), {
      principal: createPrincipal({ id: 'anonymous', kind: 'anonymous' }),
    });
    const response = await handler.handle(ctx);
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  it('lists every route of the router, and only those', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    const paths = doc.paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = handler.routes.map((r) => `${r.method} ${r.path}`);
    expect([...documented].sort()).toEqual([...served].sort());
    // Every route of the contract in api-types.ts (the /media route is not the API's).
    expect(served).toEqual(
      expect.arrayContaining([
        'GET /api/session',
        'GET /api/openapi.json',
        'GET /api/servers',
        'POST /api/servers',
        'GET /api/servers/{name}',
        'PUT /api/servers/{name}',
        'DELETE /api/servers/{name}',
        'POST /api/servers/{name}/enable',
        'POST /api/servers/{name}/disable',
        'POST /api/servers/{name}/reload',
        'GET /api/tools',
        'GET /api/tools/{name}',
        'POST /api/tools/{name}/call',
        'GET /api/resources',
        'GET /api/resources/read',
        'GET /api/prompts',
        'POST /api/prompts/{server}/{name}',
        'GET /api/inbox',
        'POST /api/inbox/{id}',
        'GET /api/events',
        'GET /api/logs/{server}',
        'GET /api/logs/{server}/follow',
        'GET /api/audit',
        'GET /api/stream',
      ]),
    );
  });

  it('resolves every reference, and describes parameters and bodies', async () => {
    const doc = await document();
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/(schemas|responses)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(20);
    const components = doc.components as Record<string, Record<string, unknown>>;
    for (const [, kind, name] of refs) expect(components[kind!]![name!], `${kind}/${name}`).toBeDefined();
    const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
    const call = paths['/api/tools/{name}/call']!.post!;
    expect(call.parameters).toEqual([expect.objectContaining({ name: 'name', in: 'path', required: true })]);
    expect(call.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolCall' } } },
    });
    expect(call.security).toEqual([{ csrf: [] }, { bearer: [] }]);
    const audit = paths['/api/audit']!.get!;
    const names = (audit.parameters as { name: string; required: boolean }[]).map((p) => [
      p.name,
      p.required,
    ]);
    expect(names).toContainEqual(['limit', false]);
    expect(names).toContainEqual(['outcome', false]);
    expect(components.schemas!.ServerEntry).toMatchObject({ properties: { command: expect.any(Object) } });
    expect(paths['/api/stream']!.get!.responses).toMatchObject({
      200: { content: { 'text/event-stream': {} } },
    });
  });

  it('is generated from schemas with the shapes of api-types.ts', () => {
    expectTypeOf<Same<Out<typeof schemas.apiServerSchema>, api.ApiServer>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiToolSchema>, api.ApiTool>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiContentSchema>, api.ApiContent>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiCallResultSchema>, api.ApiCallResult>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiResourceSchema>, api.ApiResource>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Out<typeof schemas.apiResourceTemplateSchema>, api.ApiResourceTemplate>
    >().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiPromptSchema>, api.ApiPrompt>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Out<typeof schemas.apiPromptMessageSchema>, api.ApiPromptMessage>
    >().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiInboxItemSchema>, api.ApiInboxItem>>().toEqualTypeOf<true>();
    expectTypeOf<Same<z.input<typeof schemas.inboxAnswerBody>, api.ApiInboxAnswer>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiEventSchema>, api.ApiEvent>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Out<typeof schemas.apiEventPageSchema>, api.ApiPage<api.ApiEvent>>
    >().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiLogLineSchema>, api.ApiLogLine>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiAuditEntrySchema>, api.ApiAuditEntry>>().toEqualTypeOf<true>();
    expectTypeOf<
      Same<Out<typeof schemas.apiAuditPageSchema>, api.ApiPage<api.ApiAuditEntry>>
    >().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiSessionSchema>, api.ApiSession>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiErrorSchema>, api.ApiError>>().toEqualTypeOf<true>();
    expectTypeOf<Same<Out<typeof schemas.apiStreamEventSchema>, api.ApiStreamEvent>>().toEqualTypeOf<true>();
  });
});
