import { z } from 'zod';
import type { FieldHints } from './issue-text.js';
import { sandboxSchema } from './sandbox-config.js';
import { SERVER_NAME_PATTERN, serverNameSchema } from './server-name.js';

/**
 * The raw shape of a server entry as people write it (zod), and how each field is written
 * (appended to type errors). Normalizing it into a ServerConfig is server-config.ts's job.
 */
export { SERVER_NAME_PATTERN };

const stringRecord = z.record(z.string(), z.string());
/**
 * A timeout in seconds: above 0 and at most a day. Node's timers hold at most 2^31-1 ms (24.8
 * days) and fire at once past it, so an unbounded value would turn into no timeout at all.
 */
const MAX_SECONDS = 86_400;
const seconds = z.number().positive().max(MAX_SECONDS);

const GRANTS = ['authorization_code', 'client_credentials', 'jwt_bearer'] as const;
const TOKEN_ENDPOINT_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'none',
  'private_key_jwt',
] as const;

/** Where an enterprise IdP issues the ID-JAG for the `jwt_bearer` grant (token exchange, RFC 8693). */
const idpSchema = z
  .strictObject({
    issuer: z.string().min(1).optional().describe('The IdP issuer URL (its token endpoint is discovered).'),
    tokenEndpoint: z.string().min(1).optional().describe('The IdP token endpoint, instead of "issuer".'),
    clientId: z.string().min(1).describe('Our client id at the IdP.'),
    clientSecret: z.string().min(1).optional().describe('Our client secret at the IdP, if confidential.'),
    idToken: z.string().min(1).optional().describe("The user's ID token from the IdP."),
    idTokenFile: z.string().min(1).optional().describe('A file holding the ID token, read at connect time.'),
  })
  .describe('Enterprise-managed authorization: exchange an IdP ID token for an ID-JAG (SEP-990).');

const bearerSchema = z.strictObject({ type: z.literal('bearer'), token: z.string().min(1) });
const apiKeySchema = z.strictObject({ type: z.literal('api_key'), key: z.string().min(1) });
const oauthSchema = z
  .strictObject({
    type: z.literal('oauth'),
    grant: z.enum(GRANTS).optional().meta({
      default: 'authorization_code',
      description:
        'authorization_code: a person logs in; client_credentials: a machine client; jwt_bearer: a workload or enterprise assertion.',
    }),
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe('A pre-registered client id (else CIMD or registration).'),
    clientSecret: z.string().min(1).optional().describe('The secret of the pre-registered client.'),
    clientMetadataUrl: z
      .string()
      .min(1)
      .optional()
      .describe('An https URL of our Client ID Metadata Document, used as client id where supported.'),
    issuer: z
      .string()
      .min(1)
      .optional()
      .describe('The authorization server the client id belongs to; credentials go nowhere else.'),
    scopes: z.array(z.string().min(1)).optional().describe('Scopes to ask for when the server names none.'),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
    privateKey: z.string().min(1).optional().describe('PEM private key for private_key_jwt.'),
    privateKeyFile: z.string().min(1).optional().describe('A file holding the PEM private key.'),
    signingAlgorithm: z
      .string()
      .min(1)
      .optional()
      .meta({ default: 'RS256', description: 'JWS alg of the key.' }),
    redirectUri: z
      .string()
      .min(1)
      .optional()
      .describe('Where the authorization server sends the browser back.'),
    assertion: z.string().min(1).optional().describe('jwt_bearer: the workload JWT (RFC 7523).'),
    assertionFile: z.string().min(1).optional().describe('jwt_bearer: a file holding the workload JWT.'),
    idp: idpSchema.optional(),
    dpop: z
      .boolean()
      .optional()
      .describe('Sender-constrained tokens (RFC 9449); default: when the resource server asks for them.'),
  })
  .superRefine(checkOAuth);

/** The members of `auth` by `type`, for error messages about fields inside one. */
export const AUTH_SCHEMAS = { bearer: bearerSchema, api_key: apiKeySchema, oauth: oauthSchema } as const;

/** `auth`: a static bearer token or API key (sent as `Authorization: Bearer`), or OAuth 2.1. */
const authSchema = z
  .discriminatedUnion('type', [bearerSchema, apiKeySchema, oauthSchema])
  .describe(
    'How to authenticate to a remote server: { "type": "bearer", "token": "${TOKEN}" }, { "type": "api_key", "key": "${KEY}" } or { "type": "oauth", … }.',
  );

type RawOAuth = z.input<typeof oauthSchema>;

/** Cross-field rules of `auth` of type "oauth"; each issue names the field to fix. */
function checkOAuth(o: RawOAuth, ctx: z.core.$RefinementCtx<RawOAuth>): void {
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', message, path: [field] });
  const grant = o.grant ?? 'authorization_code';
  const key = o.privateKey !== undefined || o.privateKeyFile !== undefined;
  if (o.privateKey !== undefined && o.privateKeyFile !== undefined)
    issue('privateKeyFile', 'set "privateKey" or "privateKeyFile", not both');
  if (o.clientSecret !== undefined && o.clientId === undefined)
    issue('clientId', 'a client secret needs the "clientId" it belongs to');
  if (o.tokenEndpointAuthMethod === 'private_key_jwt' && !key)
    issue('privateKey', 'private_key_jwt needs "privateKey" or "privateKeyFile"');
  if (grant === 'client_credentials' && o.clientId === undefined)
    issue('clientId', 'grant "client_credentials" needs the "clientId" the authorization server issued');
  if (grant === 'client_credentials' && o.clientSecret === undefined && !key)
    issue('clientSecret', 'grant "client_credentials" needs "clientSecret" or "privateKey"');
  if (grant === 'jwt_bearer') {
    const sources = [o.assertion, o.assertionFile, o.idp].filter((s) => s !== undefined).length;
    if (sources !== 1)
      issue('assertion', 'grant "jwt_bearer" needs exactly one of "assertion", "assertionFile", "idp"');
    if (o.idp && o.clientId === undefined)
      issue('clientId', 'an "idp" grant needs the "clientId" for this server');
    if (o.idp && (o.idp.issuer === undefined) === (o.idp.tokenEndpoint === undefined))
      issue('idp', 'set one of "idp.issuer" or "idp.tokenEndpoint"');
    if (o.idp && (o.idp.idToken === undefined) === (o.idp.idTokenFile === undefined))
      issue('idp', 'set one of "idp.idToken" or "idp.idTokenFile"');
  } else if (o.assertion !== undefined || o.assertionFile !== undefined || o.idp !== undefined) {
    issue('grant', '"assertion", "assertionFile" and "idp" need grant "jwt_bearer"');
  }
  if (
    o.clientMetadataUrl !== undefined &&
    !o.clientMetadataUrl.includes('$') &&
    !isHttpsWithPath(o.clientMetadataUrl)
  )
    issue('clientMetadataUrl', 'must be an https URL with a path, e.g. "https://example.com/client.json"');
}

function isHttpsWithPath(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.pathname !== '/';
  } catch {
    return false;
  }
}

/**
 * The fields of one server entry without its name: the value under `servers.<name>` in a
 * config file. Unknown fields are rejected (a typo must not be ignored silently).
 */
/** Seconds a call may run before the gateway makes it a task (`taskAfter`). */
const taskSeconds = z.number().min(0).max(86_400);

export const serverEntryFieldsSchema = z.strictObject({
  transport: z
    .enum(['stdio', 'http', 'sse'])
    .optional()
    .describe(
      'stdio (local process), http (Streamable HTTP) or sse (old HTTP+SSE). Inferred from command/url.',
    ),
  command: z.string().min(1).optional().describe('Program to run for a local (stdio) server.'),
  args: z.array(z.string()).optional().describe('Arguments for command.'),
  env: stringRecord.optional().describe('Environment for the local server, added to a small allowlist.'),
  cwd: z.string().optional().describe('Working directory of the local server.'),
  sandbox: sandboxSchema.optional(),
  url: z.string().optional().describe('Address of a remote server (http: or https:).'),
  headers: stringRecord.optional().describe('HTTP headers sent to a remote server.'),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe(
      'An API key for a remote server, sent as "Authorization: Bearer <key>"; usually "${KEY}". Short for "auth": { "type": "bearer", "token": … }.',
    ),
  auth: authSchema.optional(),
  enabled: z
    .boolean()
    .optional()
    .meta({ default: true, description: 'false keeps the entry but does not start it.' }),
  timeouts: z
    .strictObject({
      connect: seconds.optional().meta({ default: 60, description: 'Seconds for spawn and handshake.' }),
      // Clamped to 1–3600 by normalize, so any positive number will do.
      request: z
        .number()
        .positive()
        .optional()
        .meta({ default: 120, description: 'Seconds per request, clamped to 1–3600.' }),
      startup: seconds
        .optional()
        .meta({ default: 120, description: 'Seconds for a first start (e.g. a package download).' }),
    })
    .optional()
    .describe('Timeouts in seconds.'),
  protocol: z
    .string()
    .optional()
    .meta({
      default: 'auto',
      examples: ['auto', 'modern', 'legacy', '2025-06-18'],
      description: 'Protocol era: auto, modern, legacy or a revision.',
    }),
  trust: z
    .enum(['untrusted', 'trusted'])
    .optional()
    .meta({ default: 'untrusted', description: 'Whether the server is trusted.' }),
  tools: z
    .strictObject({
      include: z
        .array(z.string().min(1))
        .optional()
        .describe('Only tools matching one of these globs (default: all).'),
      exclude: z
        .array(z.string().min(1))
        .optional()
        .describe('Tools matching one of these globs are hidden.'),
    })
    .optional()
    .describe("Which of the server's tools are offered."),
  description: z.string().optional().describe('What the server is for, shown to people and agents.'),
  title: z.string().optional().describe('Display name.'),
  deferral: z.enum(['eager', 'deferred', 'hidden']).optional().meta({
    default: 'deferred',
    description: 'eager: tools listed up front; deferred: found on search; hidden: not offered.',
  }),
  optionalTasks: z.enum(['task', 'inline']).optional().meta({
    default: 'task',
    description:
      'A 2025-11-25 tool the server marks taskSupport "optional": task runs it as a task (created, polled, its result fetched), inline waits for the answer. A call that says which wins.',
  }),
  taskAfter: z
    .union([taskSeconds, z.record(z.string().min(1), taskSeconds)], {
      error:
        'must be a number of seconds from 0 to 86400, or per tool an object of tool-name globs to seconds',
    })
    .optional()
    .describe(
      'Through the gateway, a call to this server still running after this many seconds becomes a task for a client that supports tasks (0: at once). Per tool: { "render_*": 5, "*": 30 }; an exact name wins over globs, then the first glob that matches.',
    ),
  roots: z
    .array(z.strictObject({ uri: z.string(), name: z.string().optional() }))
    .optional()
    .describe(
      "Roots offered on roots/list: the directories the server may work in (default: the embedding app's, else none; never the working directory).",
    ),
});

/** The raw shape of one server entry with its name, as sent to the API or given to normalize. */
export const rawServerEntrySchema = z.strictObject({
  name: serverNameSchema,
  ...serverEntryFieldsSchema.shape,
});

export type RawServerEntry = z.input<typeof rawServerEntrySchema>;
/** A raw entry without its name: the value under `servers.<name>` in a config file. */
export type RawServerEntryFields = z.input<typeof serverEntryFieldsSchema>;

/** How each field is written, appended to type errors. */
export const FIELD_HINTS: FieldHints = {
  name: 'a short name such as "weather" or "github-issues"',
  command: 'the program as a string, e.g. "npx"',
  args: 'a list of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem"]',
  env: 'an object of strings, e.g. { "API_KEY": "${API_KEY}" }',
  headers: 'an object of strings, e.g. { "Authorization": "Bearer ${TOKEN}" }',
  enabled: 'true or false',
  'timeouts.connect': 'a number of seconds above 0 and at most 86400, e.g. 60',
  'timeouts.request': 'a number of seconds above 0, e.g. 120',
  'timeouts.startup': 'a number of seconds above 0 and at most 86400, e.g. 120',
  api_key: 'the key as a string, e.g. "${API_KEY}"',
  'tools.include': 'a list of tool-name globs, e.g. ["read_*"]',
  'tools.exclude': 'a list of tool-name globs, e.g. ["delete_*"]',
  roots: 'a list like [{ "uri": "file:///home/me/project" }]',
  optionalTasks: '"task" or "inline"',
  taskAfter: 'seconds, e.g. 10, or per tool { "render_*": 5, "*": 30 }',
  sandbox: '"default", "off" or a profile like { "read": ["/srv/data"], "network": "loopback" }',
  'sandbox.read': 'a list of absolute paths, e.g. ["/srv/data"]',
  'sandbox.write': 'a list of absolute paths, e.g. ["/srv/out"]',
  'sandbox.network':
    '"none", "host", "loopback" or { "loopback": [5432], "hosts": ["api.github.com", "*.example.com:8443"] }',
  'sandbox.network.hosts': 'a list of hosts, e.g. ["api.github.com", "*.example.com:8443"]',
  'sandbox.network.loopback': 'true, or a list of ports, e.g. [5432]',
  'sandbox.env': 'a list of variable names, e.g. ["GITHUB_TOKEN", "AWS_*"]',
  'auth.token': 'the token as a string, e.g. "${API_TOKEN}"',
  'auth.key': 'the key as a string, e.g. "${API_KEY}"',
  'auth.scopes': 'a list of scopes, e.g. ["read", "write"]',
};
