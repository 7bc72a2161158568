import { createHash } from 'node:crypto';
import { z } from 'zod';
import { SwitchboardError } from '../errors.js';
import { describeIssue, shownField } from './issue-text.js';

/**
 * The `gateway` section of a config file: where `switchboard serve` listens, who may call it
 * and how hard, and what it exposes. The gateway gives these words their meaning; here they
 * are only validated and defaulted.
 *
 * ```jsonc
 * "gateway": {
 *   "port": 7777,
 *   "auth": {
 *     "mode": "jwt",
 *     "jwt": { "jwksUrl": "https://id.example.com/jwks", "issuer": "https://id.example.com", "audience": "switchboard" },
 *     "resourceMetadata": { "authorizationServers": ["https://id.example.com"] }
 *   },
 *   "rateLimit": { "perIp": { "burst": 60, "perSecond": 20 } }
 * }
 * ```
 *
 * A bearer token is stored as its SHA-256, never as itself. Make a token and its hash with
 * `node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"` and
 * `printf %s "$TOKEN" | node -e "process.stdin.pipe(require('node:crypto').createHash('sha256').setEncoding('hex')).pipe(process.stdout)"`
 * (reading stdin keeps the token out of the process list).
 */

export const GATEWAY_AUTH_MODES = ['none', 'bearer', 'jwt'] as const;
export const GATEWAY_NAME_MODES = ['namespaced', 'passthrough-unique'] as const;
/** JWS algorithms a JWT may be signed with; `none` is absent on purpose (RFC 8725 §3.1). */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
/** RFC 7518 §3.2: an HMAC key must be at least as long as the hash output (32 bytes for HS256). */
export const MIN_HMAC_SECRET_LENGTH = 32;

export type GatewayAuthMode = (typeof GATEWAY_AUTH_MODES)[number];
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** A static bearer token: its SHA-256 and what its holder may use (globs; absent = everything). */
export interface GatewayTokenConfig {
  readonly id: string;
  readonly sha256: string;
  readonly servers?: readonly string[];
  readonly tools?: readonly string[];
}

/** How JWTs are checked. `key` is an HS256 secret (maybe still `${VAR}`) or a JWKS URL. */
export interface GatewayJwtConfig {
  readonly key:
    | { readonly kind: 'secret'; readonly secret: string }
    | { readonly kind: 'jwks'; readonly url: string };
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly algorithms: readonly JwtAlgorithm[];
  /** The claim that names the principal. */
  readonly principalClaim: string;
  /** Claims carrying server and tool globs; when set, a token without the claim may use nothing. */
  readonly serversClaim?: string;
  readonly toolsClaim?: string;
}

/** RFC 9728 protected resource metadata, so MCP clients can find the authorization server. */
export interface ResourceMetadataConfig {
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  /** The public URL of the MCP endpoint; default: the request's origin and `path`. */
  readonly resource?: string;
}

export type GatewayAuthConfig =
  | { readonly mode: 'none' }
  | {
      readonly mode: 'bearer';
      readonly tokens: readonly GatewayTokenConfig[];
      readonly resourceMetadata?: ResourceMetadataConfig;
    }
  | {
      readonly mode: 'jwt';
      readonly jwt: GatewayJwtConfig;
      readonly resourceMetadata?: ResourceMetadataConfig;
    };

/** A token bucket: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimitConfig {
  readonly burst: number;
  readonly perSecond: number;
}

export interface GatewayLimits {
  readonly bodyBytes: number;
  readonly argumentBytes: number;
  readonly depth: number;
  readonly stringLength: number;
  readonly requestTimeoutMs: number;
}

/** The normalized gateway settings (every field defaulted). */
export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** Allows a non-loopback bind without authentication (the gateway warns). */
  readonly insecure: boolean;
  readonly auth: GatewayAuthConfig;
  readonly allowedOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
  readonly rateLimit: { readonly perIp: RateLimitConfig; readonly perPrincipal: RateLimitConfig };
  readonly limits: GatewayLimits;
  readonly expose: {
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly prompts: readonly string[];
    /** Skills as `<server>/<skill path>` (MCP Skills extension); `[]` leaves the extension out. */
    readonly skills: readonly string[];
  };
  readonly names: (typeof GATEWAY_NAME_MODES)[number];
  readonly consent: 'on' | 'off';
  readonly idempotencyTtlMs: number;
  readonly sessions: { readonly idleTtlMs: number; readonly max: number };
  /**
   * Also serve the HTTP+SSE transport of MCP 2024-11-05 (`GET <path>/sse`, `POST
   * <path>/messages`) for clients that predate Streamable HTTP. Off unless set.
   */
  readonly legacySse: boolean;
  /**
   * Serve the management tools (register, delete, toggle and list servers) as tools of the
   * server "switchboard", under policy, consent and the allow-lists. Off unless set.
   */
  readonly management: boolean;
  readonly tasks: GatewayTaskSettings;
}

/** How the gateway keeps the tasks it answers clients with (docs/tasks.md). */
export interface GatewayTaskSettings {
  /** How long a task and its result are kept when its client asks for no ttl. */
  readonly ttlMs: number;
  /** The longest ttl a client may ask for; a longer one is cut to this. */
  readonly maxTtlMs: number;
  /** The polling interval suggested to clients. */
  readonly pollIntervalMs: number;
  /** How many tasks one gateway process runs at once; past it, calls are answered inline. */
  readonly maxRunning: number;
}

export const DEFAULT_GATEWAY: GatewayConfig = {
  host: '127.0.0.1',
  port: 7777,
  path: '/mcp',
  insecure: false,
  auth: { mode: 'none' },
  allowedOrigins: [],
  allowedHosts: [],
  // Generous enough for an agent's bursts of parallel calls and a client's start-up listing;
  // tight enough that a flood from one address or one token is cut off within a second.
  rateLimit: { perIp: { burst: 500, perSecond: 100 }, perPrincipal: { burst: 1000, perSecond: 200 } },
  limits: {
    bodyBytes: 1024 * 1024,
    argumentBytes: 256 * 1024,
    depth: 32,
    stringLength: 100_000,
    requestTimeoutMs: 120_000,
  },
  expose: { tools: ['*'], resources: ['*'], prompts: ['*'], skills: ['*'] },
  names: 'namespaced',
  consent: 'on',
  idempotencyTtlMs: 10 * 60_000,
  sessions: { idleTtlMs: 30 * 60_000, max: 1000 },
  legacySse: false,
  management: false,
  tasks: { ttlMs: 3600_000, maxTtlMs: 24 * 3600_000, pollIntervalMs: 1000, maxRunning: 1000 },
};

/** The SHA-256 of a bearer token as lowercase hex: what `auth.tokens[].sha256` holds. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const HASH_HOWTO =
  "printf %s \"$TOKEN\" | node -e \"process.stdin.pipe(require('node:crypto').createHash('sha256').setEncoding('hex')).pipe(process.stdout)\"";

function isLoopbackHttpUrl(url: URL): boolean {
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/** HTTPS, or plain HTTP to this machine only: keys and metadata fetched in clear could be forged. */
const secureUrl = z.string().refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return url.protocol === 'https:' || isLoopbackHttpUrl(url);
  },
  { message: 'must be an https:// URL (plain http:// only to localhost). Fix the URL.' },
);

const globs = z.array(z.string().min(1));
/** A week: the longest a task's result may be kept. */
const MAX_TASK_TTL_MS = 7 * 24 * 3600_000;

const tokenSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.@-]{1,64}$/)
    .describe('Names the principal in logs and audit (letters, digits, "_", ".", "@", "-").'),
  sha256: z
    .string()
    .refine((v) => /^[0-9a-fA-F]{64}$/.test(v), {
      message: `must be the SHA-256 of the token as 64 hex digits, never the token itself. Make it with: ${HASH_HOWTO}`,
    })
    .describe(`SHA-256 of the token, hex. Make it with: ${HASH_HOWTO}`),
  servers: globs.optional().describe('Server name globs this token may use; absent: all, []: none.'),
  tools: globs.optional().describe('Tool globs ("name" or "server/name"); absent: all, []: none.'),
});

const jwtSchema = z
  .strictObject({
    secret: z.string().min(1).optional().describe('HS256 shared secret, usually "${VAR}" (32+ bytes).'),
    jwksUrl: secureUrl.optional().describe('URL of the JSON Web Key Set of the token issuer.'),
    issuer: z.string().min(1).describe('Required `iss` claim.'),
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).describe('Accepted `aud`.'),
    algorithms: z
      .array(z.string())
      .min(1)
      .optional()
      .describe('Accepted `alg` values; default ["RS256","ES256"] with jwksUrl, ["HS256"] with secret.'),
    principalClaim: z.string().min(1).optional().describe('Claim naming the principal (default "sub").'),
    serversClaim: z.string().min(1).optional().describe('Claim carrying server globs (array or spaces).'),
    toolsClaim: z.string().min(1).optional().describe('Claim carrying tool globs (array or spaces).'),
  })
  .superRefine((jwt, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (jwt.secret !== undefined && jwt.jwksUrl !== undefined) {
      issue(['jwksUrl'], 'set either "secret" (HS256) or "jwksUrl", not both. Remove one.');
    } else if (jwt.secret === undefined && jwt.jwksUrl === undefined) {
      issue([], 'needs a key: set "jwksUrl" to the issuer\'s key set, or "secret" to "${VAR}" for HS256.');
    }
    if (jwt.secret !== undefined && !jwt.secret.includes('$') && jwt.secret.length < MIN_HMAC_SECRET_LENGTH) {
      issue(['secret'], `is shorter than ${MIN_HMAC_SECRET_LENGTH} characters. Use a long random secret.`);
    }
    for (const [index, alg] of (jwt.algorithms ?? []).entries()) {
      const path = ['algorithms', String(index)];
      if (alg.toLowerCase() === 'none') {
        issue(path, '"none" accepts unsigned tokens that anyone can forge. Remove it.');
      } else if (!(JWT_ALGORITHMS as readonly string[]).includes(alg)) {
        issue(path, `"${alg}" is not a known JWS algorithm. Use one of ${JWT_ALGORITHMS.join(', ')}.`);
      } else if (jwt.jwksUrl !== undefined && alg.startsWith('HS')) {
        // An HMAC algorithm next to public keys lets a token "signed" with a public key pass.
        issue(path, `"${alg}" needs a shared secret, not a key set. Remove it, or use "secret".`);
      } else if (jwt.secret !== undefined && !alg.startsWith('HS')) {
        issue(path, `"${alg}" needs a key set, not a shared secret. Remove it, or use "jwksUrl".`);
      }
    }
  });

const resourceMetadataSchema = z.strictObject({
  authorizationServers: z.array(secureUrl).min(1).describe('Issuer URLs of the authorization servers.'),
  scopesSupported: z.array(z.string().min(1)).optional(),
  resource: secureUrl.optional().describe('Public URL of the MCP endpoint (default: from the request).'),
});

const authSchema = z
  .strictObject({
    mode: z.enum(GATEWAY_AUTH_MODES).describe('none (loopback only), bearer (static tokens) or jwt.'),
    tokens: z.array(tokenSchema).optional().describe('Static bearer tokens (mode bearer).'),
    jwt: jwtSchema.optional().describe('How JWTs are verified (mode jwt).'),
    resourceMetadata: resourceMetadataSchema
      .optional()
      .describe('RFC 9728 metadata served at /.well-known/oauth-protected-resource<path>.'),
  })
  .superRefine((auth, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (auth.mode === 'bearer' && (auth.tokens ?? []).length === 0) {
      issue(['tokens'], 'mode "bearer" needs at least one token: { "id": "…", "sha256": "…" }. Add one.');
    }
    if (auth.mode === 'jwt' && auth.jwt === undefined) {
      issue(['jwt'], 'mode "jwt" needs { "issuer", "audience", and "jwksUrl" or "secret" }. Add it.');
    }
    if (auth.mode !== 'bearer' && auth.tokens !== undefined) {
      issue(
        ['tokens'],
        `tokens are used only in mode "bearer", not "${auth.mode}". Remove them or change mode.`,
      );
    }
    if (auth.mode !== 'jwt' && auth.jwt !== undefined) {
      issue(['jwt'], `is used only in mode "jwt", not "${auth.mode}". Remove it or change mode.`);
    }
    if (auth.mode === 'none' && auth.resourceMetadata !== undefined) {
      issue(
        ['resourceMetadata'],
        'means nothing in mode "none". Remove it or set a mode that checks tokens.',
      );
    }
    const ids = new Set<string>();
    const hashes = new Set<string>();
    for (const [index, token] of (auth.tokens ?? []).entries()) {
      if (ids.has(token.id))
        issue(['tokens', String(index), 'id'], `"${token.id}" is used twice. Rename one.`);
      if (hashes.has(token.sha256.toLowerCase())) {
        issue(['tokens', String(index), 'sha256'], 'the same token is listed twice. Remove one.');
      }
      ids.add(token.id);
      hashes.add(token.sha256.toLowerCase());
    }
  });

const bucketSchema = z.strictObject({
  burst: z.number().int().min(1).max(1_000_000).describe('Requests allowed at once.'),
  perSecond: z.number().positive().max(1_000_000).describe('Requests per second in the long run.'),
});

const originSchema = z.string().refine((v) => URL.canParse(v) && new URL(v).origin === v, {
  message: 'must be an origin like "https://app.example.com" (scheme, host, port; no path or "/"). Fix it.',
});
const hostHeaderSchema = z
  .string()
  .refine((v) => /^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/i.test(v), {
    message: 'must be a Host header value like "mcp.example.com" or "mcp.example.com:8443". Fix it.',
  });

export const gatewaySchema = z
  .strictObject({
    host: z.string().min(1).optional().describe('Address to listen on (default 127.0.0.1).'),
    port: z.number().int().min(0).max(65535).optional().describe('Port to listen on (default 7777).'),
    path: z
      .string()
      .regex(/^\/[A-Za-z0-9._~/-]*$/)
      .optional()
      .describe('Path of the MCP endpoint (default /mcp).'),
    insecure: z.boolean().optional().describe('Allow a non-loopback address without authentication.'),
    auth: authSchema.optional().describe('Who may call the gateway.'),
    allowedOrigins: z.array(originSchema).optional().describe('Browser origins allowed besides loopback.'),
    allowedHosts: z.array(hostHeaderSchema).optional().describe('Host headers allowed besides loopback.'),
    rateLimit: z
      .strictObject({ perIp: bucketSchema.optional(), perPrincipal: bucketSchema.optional() })
      .optional()
      .describe('Token buckets; over the limit a request gets 429 with Retry-After.'),
    limits: z
      .strictObject({
        bodyBytes: z
          .number()
          .int()
          .min(1024)
          .max(64 * 1024 * 1024)
          .optional(),
        argumentBytes: z
          .number()
          .int()
          .min(1)
          .max(64 * 1024 * 1024)
          .optional(),
        depth: z.number().int().min(1).max(1000).optional(),
        stringLength: z
          .number()
          .int()
          .min(1)
          .max(64 * 1024 * 1024)
          .optional(),
        requestTimeoutMs: z
          .number()
          .int()
          .min(1000)
          .max(24 * 3600_000)
          .optional(),
      })
      .optional()
      .describe('Caps on request bodies, tool arguments and request time.'),
    expose: z
      .strictObject({
        tools: globs.optional(),
        resources: globs.optional(),
        prompts: globs.optional(),
        skills: globs.optional(),
      })
      .optional()
      .describe('Which tools, resources, prompts and skills are served (globs).'),
    names: z.enum(GATEWAY_NAME_MODES).optional().describe('How served tool names are formed.'),
    consent: z.enum(['on', 'off']).optional().describe('Ask before a call the policy says to ask about.'),
    idempotencyTtlMs: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600_000)
      .optional(),
    sessions: z
      .strictObject({
        idleTtlMs: z
          .number()
          .int()
          .min(1000)
          .max(7 * 24 * 3600_000)
          .optional(),
        max: z.number().int().min(1).max(1_000_000).optional(),
      })
      .optional(),
    legacySse: z
      .boolean()
      .optional()
      .describe(
        'Also serve the 2024-11-05 HTTP+SSE transport at <path>/sse for old clients (default false).',
      ),
    management: z
      .boolean()
      .optional()
      .describe(
        'Serve the management tools (register_mcp, delete_mcp, toggle_mcp, list_mcp) of the server "switchboard", under policy and consent (default false).',
      ),
    tasks: z
      .strictObject({
        ttlMs: z
          .number()
          .int()
          .min(1000)
          .max(MAX_TASK_TTL_MS)
          .optional()
          .describe(
            'How long a task and its result are kept when its client asks for no ttl (default 3600000).',
          ),
        maxTtlMs: z
          .number()
          .int()
          .min(1000)
          .max(MAX_TASK_TTL_MS)
          .optional()
          .describe('The longest ttl a client may ask for; longer ones are cut to it (default 86400000).'),
        pollIntervalMs: z
          .number()
          .int()
          .min(100)
          .max(60_000)
          .optional()
          .describe('The polling interval suggested to clients (default 1000).'),
        maxRunning: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .optional()
          .describe(
            'Tasks one gateway process runs at once; past it calls are answered inline (default 1000).',
          ),
      })
      .superRefine((tasks, ctx) => {
        const ttl = tasks.ttlMs ?? DEFAULT_GATEWAY.tasks.ttlMs;
        const max = tasks.maxTtlMs ?? DEFAULT_GATEWAY.tasks.maxTtlMs;
        if (ttl > max) {
          ctx.addIssue({
            code: 'custom',
            path: [tasks.ttlMs === undefined ? 'maxTtlMs' : 'ttlMs'],
            message: `the default ttl (${ttl} ms) is longer than the longest allowed (maxTtlMs, ${max} ms). Lower ttlMs or raise maxTtlMs.`,
          });
        }
      })
      .optional()
      .describe('Tasks the gateway answers clients with: how long they are kept, how often to poll.'),
  })
  .describe('The gateway: Switchboard served as one MCP server (switchboard serve).');

/** How fields should be written, for messages about values of the wrong form. */
const HINTS = {
  'auth.tokens.id': 'at most 64 letters, digits, "_", ".", "@" or "-", e.g. "ci-bot"',
  port: 'a whole number from 0 to 65535, e.g. 7777',
  path: 'a URL path like "/mcp"',
  host: 'an address like "127.0.0.1"',
} as const;

/** The fields one file sets; unset fields stay unset so files can be merged. */
export type GatewaySection = z.output<typeof gatewaySchema>;

/** Validates a raw `gateway` section. Every rejection names the file, the field and the fix. */
export function parseGateway(raw: unknown, file: string): GatewaySection {
  const parsed = gatewaySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const described =
    issue.code === 'custom'
      ? { field: shownField(issue.path.map(String)), problem: issue.message }
      : describeIssue(issue, gatewaySchema, HINTS);
  const field = ['gateway', described.field].filter((p) => p !== '' && p !== '(entry)').join('.');
  throw new SwitchboardError('CONFIG_INVALID', `${file}: field "${field}": ${described.problem}`, {
    details: { file, field },
  });
}

/**
 * Project settings win field by field. `auth`, `allowedOrigins` and `allowedHosts` are taken
 * whole from one file: who may call is one decision, and a union of two lists would widen
 * access beyond what either file says.
 */
export function mergeGateway(user: GatewaySection, project: GatewaySection): GatewaySection {
  const nested = <K extends 'rateLimit' | 'limits' | 'expose' | 'sessions' | 'tasks'>(key: K) =>
    user[key] || project[key] ? { [key]: { ...user[key], ...project[key] } } : {};
  return {
    ...user,
    ...project,
    ...nested('rateLimit'),
    ...nested('limits'),
    ...nested('expose'),
    ...nested('sessions'),
    ...nested('tasks'),
  };
}

function resolveAuth(auth: z.output<typeof authSchema> | undefined): GatewayAuthConfig {
  if (auth === undefined || auth.mode === 'none') return { mode: 'none' };
  const metadata = auth.resourceMetadata && { resourceMetadata: auth.resourceMetadata };
  if (auth.mode === 'bearer') return { mode: 'bearer', tokens: auth.tokens ?? [], ...metadata };
  const jwt = auth.jwt!;
  const key =
    jwt.jwksUrl !== undefined
      ? { kind: 'jwks' as const, url: jwt.jwksUrl }
      : { kind: 'secret' as const, secret: jwt.secret ?? '' };
  const algorithms =
    (jwt.algorithms as JwtAlgorithm[] | undefined) ?? (key.kind === 'jwks' ? ['RS256', 'ES256'] : ['HS256']);
  return {
    mode: 'jwt',
    jwt: {
      key,
      issuer: jwt.issuer,
      audience: typeof jwt.audience === 'string' ? [jwt.audience] : jwt.audience,
      algorithms,
      principalClaim: jwt.principalClaim ?? 'sub',
      ...(jwt.serversClaim !== undefined && { serversClaim: jwt.serversClaim }),
      ...(jwt.toolsClaim !== undefined && { toolsClaim: jwt.toolsClaim }),
    },
    ...metadata,
  };
}

/** Two files may each be consistent and their merge not: the default ttl never exceeds the longest. */
function resolveTasks(tasks: GatewayTaskSettings): GatewayTaskSettings {
  return { ...tasks, ttlMs: Math.min(tasks.ttlMs, tasks.maxTtlMs) };
}

/** The settings with every default applied. */
export function resolveGateway(section: GatewaySection | undefined): GatewayConfig {
  const s = section ?? {};
  const d = DEFAULT_GATEWAY;
  return {
    host: s.host ?? d.host,
    port: s.port ?? d.port,
    path: s.path ?? d.path,
    insecure: s.insecure ?? d.insecure,
    auth: resolveAuth(s.auth),
    allowedOrigins: s.allowedOrigins ?? d.allowedOrigins,
    allowedHosts: s.allowedHosts ?? d.allowedHosts,
    rateLimit: {
      perIp: s.rateLimit?.perIp ?? d.rateLimit.perIp,
      perPrincipal: s.rateLimit?.perPrincipal ?? d.rateLimit.perPrincipal,
    },
    limits: { ...d.limits, ...s.limits },
    expose: { ...d.expose, ...s.expose },
    names: s.names ?? d.names,
    consent: s.consent ?? d.consent,
    idempotencyTtlMs: s.idempotencyTtlMs ?? d.idempotencyTtlMs,
    sessions: { ...d.sessions, ...s.sessions },
    legacySse: s.legacySse ?? d.legacySse,
    management: s.management ?? d.management,
    tasks: resolveTasks({ ...d.tasks, ...s.tasks }),
  };
}
