import { z } from 'zod';
import { serverNameSchema } from '../../core/config/server-name.js';
import { serverEntryFieldsSchema } from '../../core/server-config.js';

/**
 * The API's JSON shapes as zod schemas: request bodies, which the routes validate with them,
 * and responses, which only the OpenAPI document uses. Each is registered under the name
 * of its type in api-types.ts, and a test holds the two to the same shape, so the contract
 * the dashboard compiles against and the document at `/api/openapi.json` cannot drift apart.
 */

/** What a registered schema carries: its component name in the OpenAPI document. */
export interface SchemaMeta {
  readonly id: string;
  readonly description?: string;
}

/** Request bodies and query parameters: described as a client writes them (`io: input`). */
export const requestSchemas = z.registry<SchemaMeta>();
/** Responses: described as the API writes them (`io: output`). */
export const responseSchemas = z.registry<SchemaMeta>();

const isoDate = () => z.string().meta({ format: 'date-time' });
export const jsonObject = () => z.record(z.string(), z.unknown());

// ---- requests ---------------------------------------------------------------------------------

export const serverEntryBody = serverEntryFieldsSchema.register(requestSchemas, {
  id: 'ServerEntry',
  description: 'A server entry as under `servers.<name>` in a config file (without its name).',
});

export const serverCreateBody = z
  .strictObject({ name: serverNameSchema, entry: serverEntryBody })
  .register(requestSchemas, { id: 'ServerCreate', description: 'A server to add: its name and entry.' });

export const serverReplaceBody = z
  .strictObject({ entry: serverEntryBody })
  .register(requestSchemas, { id: 'ServerReplace', description: "The server's new entry." });

export const toolCallBody = z
  .strictObject({ arguments: jsonObject().optional().describe("The tool's arguments (default {}).") })
  .register(requestSchemas, { id: 'ToolCall', description: 'A tool call.' });

export const promptGetBody = z
  .strictObject({
    arguments: z.record(z.string(), z.string()).optional().describe("The prompt's arguments, as text."),
  })
  .register(requestSchemas, { id: 'PromptGet', description: 'Arguments of a prompt.' });

export const inboxAnswerBody = z
  .strictObject({
    action: z.enum(['accept', 'decline']),
    always: z.boolean().optional().describe('Approvals: allow this tool from now on.'),
    content: jsonObject().optional().describe('Accepted elicitation forms: the answers.'),
  })
  .register(requestSchemas, { id: 'ApiInboxAnswer', description: 'The answer to an inbox item.' });

// ---- responses --------------------------------------------------------------------------------

const stateSchema = z
  .enum(['connecting', 'connected', 'reconnecting', 'needs_auth', 'failed', 'disabled'])
  .register(responseSchemas, { id: 'ApiServerState' });

export const apiServerSchema = z
  .object({
    name: z.string(),
    transport: z.enum(['stdio', 'http', 'sse']),
    state: stateSchema,
    enabled: z.boolean(),
    protocolVersion: z.string().optional(),
    tools: z.number().int(),
    resources: z.number().int(),
    prompts: z.number().int(),
    source: z.string().describe('A config file path, or `api` / `store` for added ones.'),
    editable: z.boolean().describe('Whether the entry can be changed or removed here.'),
    description: z.string().optional(),
    sandbox: z
      .string()
      .optional()
      .describe(
        'A local server\'s sandbox in force: "off", or its profile and what it grants (docs/sandbox.md).',
      ),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    hint: z.string().optional().describe('What to do about a server that is not connected.'),
    rejectedTools: z.array(z.object({ tool: z.string(), reason: z.string(), detail: z.string() })),
    incompleteLists: z
      .array(
        z.object({
          kind: z.enum(['tools', 'resources', 'prompts']),
          reason: z.enum(['page-cap', 'cursor-loop']),
          pages: z.number().int(),
          items: z.number().int(),
        }),
      )
      .optional()
      .describe(
        'Lists the server cut short (only when some were): page-cap, more pages than the cap; cursor-loop, a cursor handed back again.',
      ),
    replicas: z
      .array(
        z.object({
          replica: z.string().describe('The replica, by the URL the others reach it at.'),
          self: z.boolean().describe('Whether it is the replica that answered this request.'),
          state: stateSchema,
          tools: z.number().int(),
          error: z.object({ code: z.string(), message: z.string() }).optional(),
        }),
      )
      .optional()
      .describe(
        "With replicas (docs/replicas.md): the server's state on each live replica, each connecting on its own.",
      ),
  })
  .register(responseSchemas, { id: 'ApiServer' });

export const apiServerDetailSchema = apiServerSchema
  .extend({
    entry: jsonObject().describe('The entry, as in a config file (see the ServerEntry request schema).'),
  })
  .register(responseSchemas, { id: 'ApiServerDetail' });

export const apiServerListSchema = z
  .object({ servers: z.array(apiServerSchema) })
  .register(responseSchemas, { id: 'ApiServerList' });

export const apiToolSchema = z
  .object({
    name: z.string().describe('The catalog name, `mcp__<server>__<tool>`.'),
    server: z.string(),
    tool: z.string().describe("The server's own name for it."),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: jsonObject(),
    outputSchema: jsonObject().optional(),
    annotations: jsonObject().optional(),
    app: z
      .object({
        resourceUri: z.string().optional().describe('The `ui://` view its results render with.'),
        visibility: z.array(z.enum(['model', 'app'])).describe('Who may call it (MCP Apps).'),
      })
      .optional()
      .describe('What its MCP Apps `_meta.ui` says, when it has one.'),
  })
  .register(responseSchemas, { id: 'ApiTool' });

export const apiToolListSchema = z
  .object({ tools: z.array(apiToolSchema) })
  .register(responseSchemas, { id: 'ApiToolList' });

export const apiContentSchema = z
  .union([
    z.object({
      type: z.literal('text'),
      text: z.string(),
      uri: z.string().optional(),
      mimeType: z.string().optional(),
    }),
    z.object({
      type: z.enum(['image', 'audio', 'blob']),
      mimeType: z.string(),
      url: z.string().describe('`/media/<id>.<ext>`, served by this process.'),
      bytes: z.number().int(),
      uri: z.string().optional(),
    }),
    z.object({
      type: z.literal('resource_link'),
      uri: z.string(),
      name: z.string(),
      mimeType: z.string().optional(),
      description: z.string().optional(),
    }),
  ])
  .register(responseSchemas, { id: 'ApiContent' });

export const apiResultAppSchema = z
  .object({
    server: z.string().describe('The server whose view renders the result, and whose tools it may call.'),
    tool: z.string().describe('The catalog name of the tool called.'),
    resourceUri: z.string().describe('The `ui://` view.'),
    input: jsonObject().describe("The call's arguments."),
    result: jsonObject().describe('The result as the server returned it (what the view is sent).'),
  })
  .register(responseSchemas, { id: 'ApiResultApp' });

export const apiCallResultSchema = z
  .object({
    isError: z.boolean(),
    content: z.array(apiContentSchema),
    structuredContent: z.unknown().optional(),
    ms: z.number().describe('How long the call took, end to end (approval wait included).'),
    app: apiResultAppSchema.optional().describe("The tool's MCP App, when it has a view."),
  })
  .register(responseSchemas, { id: 'ApiCallResult' });

export const apiAppViewSchema = z
  .object({
    server: z.string(),
    uri: z.string(),
    html: z.string().describe('The view document, as its server wrote it.'),
    csp: z.string().describe('The Content-Security-Policy it runs under: declared origins only.'),
    allow: z.string().describe("The inner frame's `allow` attribute."),
    prefersBorder: z.boolean().optional(),
    sandbox: z
      .object({
        domain: z.string().describe("The view's own origin: its server's domain under .localhost."),
        token: z.string().describe('What its sandbox page is served with: it binds the domain and the CSP.'),
      })
      .describe("Where the view runs: its server's own origin, the same on every run."),
    domain: z.string().optional().describe('The dedicated domain the view declared (`_meta.ui.domain`).'),
    domainHonoured: z.boolean().optional().describe('Whether the view runs at the domain it declared.'),
    domainNotice: z.string().optional().describe('Where the view runs instead, and why.'),
  })
  .register(responseSchemas, { id: 'ApiAppView' });

export const apiAppCallResultSchema = jsonObject()
  .describe("A view's call answered: the CallToolResult as the server returned it.")
  .register(responseSchemas, { id: 'ApiAppCallResult' });

export const apiAppListSchema = z
  .object({
    apps: z.array(
      z.object({
        name: z.string(),
        server: z.string(),
        tool: z.string(),
        title: z.string().optional(),
        description: z.string().optional(),
        resourceUri: z.string(),
        last: apiResultAppSchema.extend({ at: z.string() }).optional(),
      }),
    ),
  })
  .register(responseSchemas, { id: 'ApiAppList' });

export const apiResourceSchema = z
  .object({
    server: z.string(),
    uri: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
  })
  .register(responseSchemas, { id: 'ApiResource' });

export const apiResourceTemplateSchema = z
  .object({
    server: z.string(),
    uriTemplate: z.string(),
    name: z.string(),
    description: z.string().optional(),
    mimeType: z.string().optional(),
  })
  .register(responseSchemas, { id: 'ApiResourceTemplate' });

export const apiResourceListSchema = z
  .object({ resources: z.array(apiResourceSchema), templates: z.array(apiResourceTemplateSchema) })
  .register(responseSchemas, { id: 'ApiResourceList' });

export const apiResourceContentsSchema = z
  .object({ contents: z.array(apiContentSchema) })
  .register(responseSchemas, { id: 'ApiResourceContents' });

export const apiPromptSchema = z
  .object({
    server: z.string(),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    arguments: z.array(
      z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }),
    ),
  })
  .register(responseSchemas, { id: 'ApiPrompt' });

export const apiPromptListSchema = z
  .object({ prompts: z.array(apiPromptSchema) })
  .register(responseSchemas, { id: 'ApiPromptList' });

export const apiPromptMessageSchema = z
  .object({ role: z.enum(['user', 'assistant']), content: apiContentSchema })
  .register(responseSchemas, { id: 'ApiPromptMessage' });

export const apiPromptResultSchema = z
  .object({ description: z.string().optional(), messages: z.array(apiPromptMessageSchema) })
  .register(responseSchemas, { id: 'ApiPromptResult' });

export const apiInboxItemSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['approval', 'elicitation']),
    server: z.string(),
    tool: z.string().optional(),
    session: z.string().optional(),
    preview: z.string().describe("Approval: the masked argument preview. Elicitation: the server's message."),
    reason: z.string().optional(),
    mode: z.enum(['form', 'url']).optional(),
    requestedSchema: jsonObject().optional(),
    secretFields: z.array(z.string()).optional(),
    url: z.string().optional(),
    replica: z
      .string()
      .optional()
      .describe('With replicas: the replica whose call waits for it, when not this one (its URL).'),
    createdAt: isoDate(),
    deadline: isoDate(),
  })
  .register(responseSchemas, { id: 'ApiInboxItem' });

export const apiInboxListSchema = z
  .object({ items: z.array(apiInboxItemSchema) })
  .register(responseSchemas, { id: 'ApiInboxList' });

export const apiInboxResolutionSchema = z
  .object({ id: z.string(), action: z.enum(['accept', 'decline']), always: z.boolean() })
  .register(responseSchemas, { id: 'ApiInboxResolution' });

export const apiEventSchema = z
  .object({
    id: z.number().int(),
    server: z.string(),
    method: z.string(),
    params: z.unknown(),
    receivedAt: isoDate(),
  })
  .register(responseSchemas, { id: 'ApiEvent' });

const cursor = () => z.number().int().optional().describe('Pass as `before` for the next page.');

export const apiEventPageSchema = z
  .object({ items: z.array(apiEventSchema), nextCursor: cursor() })
  .register(responseSchemas, { id: 'ApiEventPage' });

export const apiLogLineSchema = z
  .object({
    at: isoDate().optional(),
    source: z.string().optional(),
    level: z.string().optional(),
    text: z.string(),
  })
  .register(responseSchemas, { id: 'ApiLogLine' });

export const apiLogTailSchema = z
  .object({ server: z.string(), file: z.string(), lines: z.array(apiLogLineSchema) })
  .register(responseSchemas, { id: 'ApiLogTail' });

const nullableMs = z.number().nullable();
export const apiCallStatsSchema = z
  .object({
    slotSeconds: z.number(),
    now: z.number(),
    servers: z.array(
      z.object({
        server: z.string(),
        points: z.array(
          z.object({
            t: z.number(),
            calls: z.number().int(),
            errors: z.number().int(),
            refused: z.number().int(),
            p50: nullableMs,
            p99: nullableMs,
          }),
        ),
        lastMinute: z.object({
          calls: z.number().int(),
          rate: z.number(),
          errorRate: z.number().nullable(),
          p50: nullableMs,
          p99: nullableMs,
        }),
      }),
    ),
  })
  .register(responseSchemas, { id: 'ApiCallStats' });

export const apiAuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: isoDate(),
    server: z.string().nullable(),
    actor: z.string().nullable(),
    action: z.string(),
    outcome: z.string().nullable(),
    details: z.unknown(),
  })
  .register(responseSchemas, { id: 'ApiAuditEntry' });

export const apiAuditPageSchema = z
  .object({ items: z.array(apiAuditEntrySchema), nextCursor: cursor() })
  .register(responseSchemas, { id: 'ApiAuditPage' });

export const apiSessionSchema = z
  .object({
    principal: z.string(),
    csrfToken: z.string().describe('Send as `X-Switchboard-CSRF` on POST, PUT, PATCH and DELETE.'),
    mcpUrl: z.string(),
    version: z.string(),
    canManage: z.boolean(),
  })
  .register(responseSchemas, { id: 'ApiSession' });

export const apiErrorSchema = z
  .object({
    error: z.object({
      code: z.string().describe('Stable, e.g. NOT_FOUND, INVALID_REQUEST, CSRF_REQUIRED, FORBIDDEN.'),
      message: z.string().describe('What went wrong and what to do about it.'),
      details: z.unknown().optional(),
    }),
  })
  .register(responseSchemas, { id: 'ApiError' });

export const apiStreamEventSchema = z
  .discriminatedUnion('event', [
    z.object({ event: z.literal('servers'), data: apiServerListSchema }),
    z.object({ event: z.literal('inbox'), data: apiInboxListSchema }),
    z.object({ event: z.literal('catalog'), data: z.object({ etag: z.string() }) }),
    z.object({ event: z.literal('event'), data: apiEventSchema }),
  ])
  .register(responseSchemas, {
    id: 'ApiStreamEvent',
    description: 'An event of `GET /api/stream`: the SSE `event:` name and its JSON `data:`.',
  });
