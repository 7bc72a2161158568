import type { z } from 'zod';
import {
  AUTH_SCHEMAS,
  FIELD_HINTS,
  type RawServerEntry,
  type RawServerEntryFields,
  rawServerEntrySchema,
  SERVER_NAME_PATTERN,
  serverEntryFieldsSchema,
} from './config/entry-schema.js';
import { describeIssue, shownText } from './config/issue-text.js';
import { normalizeSandbox, type SandboxSetting } from './config/sandbox-config.js';
import { shownName } from './config/server-name.js';
import { SwitchboardError } from './errors.js';

/**
 * One upstream server's configuration: the raw shape people write (zod schema), and the
 * readonly normalized value the rest of Switchboard uses. Values keep their `${VAR}`
 * references; they are expanded when a connection starts, so a changed environment applies
 * on the next reconnect and secrets are never written back to a file.
 */

export type { RawServerEntry, RawServerEntryFields };
export { rawServerEntrySchema, SERVER_NAME_PATTERN, serverEntryFieldsSchema };

/** Protocol era selection. `auto` prefers 2026-07-28 and falls back to `initialize`. */
export type ProtocolMode =
  | { readonly kind: 'auto' }
  | { readonly kind: 'modern' }
  | { readonly kind: 'legacy' }
  | { readonly kind: 'pinned'; readonly version: string };

export interface StdioTransportConfig {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * The kernel confinement it runs in (config/sandbox-config.ts). Undefined: the entry says
   * nothing, which means off for a config-file entry and the default profile for a server
   * registered at run time (the host's registry decides).
   */
  readonly sandbox?: SandboxSetting;
}

export interface HttpTransportConfig {
  readonly kind: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type TransportConfig = StdioTransportConfig | HttpTransportConfig;

export interface Timeouts {
  /** Budget for spawn/handshake, ms. */
  readonly connectMs: number;
  /** Budget for one request, ms; reset by progress, paused while the user answers. */
  readonly requestMs: number;
}

/** A root offered to servers that ask `roots/list`. */
export interface RootConfig {
  readonly uri: string;
  readonly name?: string;
}

/** A static credential sent as `Authorization: Bearer <token>` (`api_key` entries become this). */
export interface BearerAuthConfig {
  readonly type: 'bearer';
  readonly token: string;
}

/** The OAuth grant used to get tokens: a person logs in, a machine client, or an assertion. */
export type OAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt_bearer';

/** An enterprise IdP that turns an ID token into an ID-JAG for the `jwt_bearer` grant (SEP-990). */
export interface IdpConfig {
  readonly issuer?: string;
  readonly tokenEndpoint?: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly idToken?: string;
  readonly idTokenFile?: string;
}

/**
 * OAuth 2.1 settings for a remote server. Everything is optional for the common case (a person
 * logs in; the client registers itself). Values keep their `${VAR}` references until connect.
 */
export interface OAuthConfig {
  readonly type: 'oauth';
  readonly grant: OAuthGrant;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Client ID Metadata Document URL, used as the client id where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** The authorization server a pre-registered client belongs to. */
  readonly issuer?: string;
  readonly scopes?: readonly string[];
  readonly tokenEndpointAuthMethod?:
    | 'client_secret_basic'
    | 'client_secret_post'
    | 'none'
    | 'private_key_jwt';
  readonly privateKey?: string;
  readonly privateKeyFile?: string;
  readonly signingAlgorithm?: string;
  readonly redirectUri?: string;
  readonly assertion?: string;
  readonly assertionFile?: string;
  readonly idp?: IdpConfig;
  /** false: never DPoP; true: always; absent: when the resource server asks for DPoP-bound tokens. */
  readonly dpop?: boolean;
}

/** `auth` of a server entry, normalized for the client layer. */
export type AuthConfig = BearerAuthConfig | OAuthConfig;

/** Which tools of a server are offered: globs over tool names. */
export interface ToolFilter {
  /** Only tools matching one of these; undefined means every tool. */
  readonly include?: readonly string[];
  /** Tools matching one of these are hidden, even when included. */
  readonly exclude: readonly string[];
}

export type TrustLevel = 'untrusted' | 'trusted';
/** eager: tools listed up front; deferred: found through search; hidden: not offered to agents. */
export type Deferral = 'eager' | 'deferred' | 'hidden';

/** The normalized, readonly configuration of one upstream server. */
export interface ServerConfig {
  readonly name: string;
  readonly transport: TransportConfig;
  readonly timeouts: Timeouts;
  readonly protocol: ProtocolMode;
  /** Roots for `roots/list`; undefined means the embedding app's, else none (client/roots.ts). */
  readonly roots?: readonly RootConfig[];
  /** false: the entry is kept but the server is not started. */
  readonly enabled: boolean;
  /**
   * Budget for a server's first start (a package download, a build), ms. The supervisor's
   * concern, not the Connection's, so it sits outside `timeouts`.
   */
  readonly startupTimeoutMs: number;
  readonly auth?: AuthConfig;
  readonly trust: TrustLevel;
  readonly tools: ToolFilter;
  readonly deferral: Deferral;
  /** A 2025-11-25 tool marked taskSupport "optional" runs as a task (`task`) or not (`inline`). */
  readonly optionalTasks: 'task' | 'inline';
  /**
   * Through the gateway, calls still running after `afterMs` become tasks for clients that
   * support tasks: one rule per tool glob, exact names first, then globs in the order written.
   */
  readonly taskAfter?: readonly TaskAfterRule[];
  readonly description?: string;
  readonly title?: string;
}

/** Calls to the tools matching `tools` (a name or a glob) that run longer than `afterMs` become tasks. */
export interface TaskAfterRule {
  readonly tools: string;
  readonly afterMs: number;
}

/** Known protocol revisions, newest first. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const KNOWN_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 60_000, requestMs: 120_000 };
export const DEFAULT_STARTUP_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_RANGE_S = [1, 3600] as const;

/** Where an entry came from, for error messages. */
export interface EntrySource {
  readonly file?: string;
}

/**
 * The CONFIG_INVALID error for one field of one entry: "file: server "x", field "y": what is
 * wrong and how to fix it", with file, server and field in `details`.
 */
export function configEntryError(
  source: EntrySource,
  entry: string,
  field: string,
  problem: string,
): SwitchboardError {
  const where = source.file ? `${source.file}: ` : '';
  return new SwitchboardError(
    'CONFIG_INVALID',
    `${where}server "${shownName(entry)}", field "${field}": ${problem}`,
    {
      details: { file: source.file, server: entry, field },
    },
  );
}

/** Parses a protocol setting: auto | modern | legacy | a known revision date. */
export function parseProtocolMode(value: string | undefined): ProtocolMode | undefined {
  if (value === undefined || value === 'auto') return { kind: 'auto' };
  if (value === 'modern' || value === 'legacy') return { kind: value };
  if (KNOWN_PROTOCOL_VERSIONS.includes(value)) return { kind: 'pinned', version: value };
  return undefined;
}

/**
 * Validates a raw entry and returns the normalized config. Every rejection names the file,
 * the entry and the field, and says how to fix it.
 */
export function normalizeServerEntry(raw: unknown, source: EntrySource = {}): ServerConfig {
  const rawName =
    typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string'
      ? (raw as { name: string }).name
      : '(unnamed)';
  const parsed = rawServerEntrySchema.safeParse(raw);
  if (!parsed.success) {
    const { field, problem } = describeIssue(parsed.error.issues[0]!, issueSchema(raw), FIELD_HINTS);
    throw configEntryError(source, rawName, field, problem);
  }
  const e = parsed.data;
  const transport = normalizeTransport(e, source);
  const auth = entryAuth(e, transport, source);
  if (e.auth?.type === 'oauth' && transport.kind === 'stdio') {
    throw configEntryError(
      source,
      e.name,
      'auth',
      'OAuth is for remote servers ("url"). Give a local server its credentials through "env".',
    );
  }

  const protocol = parseProtocolMode(e.protocol);
  if (!protocol) {
    throw configEntryError(
      source,
      e.name,
      'protocol',
      `${shownText(e.protocol ?? '')} is not a protocol mode. Use "auto", "modern", "legacy" or one of ${KNOWN_PROTOCOL_VERSIONS.join(', ')}.`,
    );
  }
  const [min, max] = REQUEST_TIMEOUT_RANGE_S;
  const requestS = e.timeouts?.request;
  const timeouts: Timeouts = {
    connectMs: e.timeouts?.connect !== undefined ? e.timeouts.connect * 1000 : DEFAULT_TIMEOUTS.connectMs,
    requestMs:
      requestS !== undefined ? Math.min(max, Math.max(min, requestS)) * 1000 : DEFAULT_TIMEOUTS.requestMs,
  };
  const startupS = e.timeouts?.startup;
  const tools: ToolFilter = e.tools?.include
    ? { include: e.tools.include, exclude: e.tools.exclude ?? [] }
    : { exclude: e.tools?.exclude ?? [] };
  return {
    name: e.name,
    transport,
    timeouts,
    protocol,
    ...(e.roots ? { roots: e.roots } : {}),
    enabled: e.enabled ?? true,
    startupTimeoutMs: startupS !== undefined ? startupS * 1000 : DEFAULT_STARTUP_TIMEOUT_MS,
    ...(auth ? { auth } : {}),
    trust: e.trust ?? 'untrusted',
    tools,
    deferral: e.deferral ?? 'deferred',
    optionalTasks: e.optionalTasks ?? 'task',
    ...(e.taskAfter !== undefined && { taskAfter: taskAfterRules(e.taskAfter) }),
    ...(e.description !== undefined ? { description: e.description } : {}),
    ...(e.title !== undefined ? { title: e.title } : {}),
  };
}

/** `taskAfter` as rules: seconds for every tool, or per glob with exact names first. */
function taskAfterRules(value: number | Readonly<Record<string, number>>): TaskAfterRule[] {
  if (typeof value === 'number') return [{ tools: '*', afterMs: value * 1000 }];
  const rules = Object.entries(value).map(([tools, seconds]) => ({ tools, afterMs: seconds * 1000 }));
  const exact = (rule: TaskAfterRule) => !/[*?]/.test(rule.tools);
  return [...rules.filter(exact), ...rules.filter((rule) => !exact(rule))];
}

/** The entry schema with `auth` narrowed to the member named by its `type`, so an unknown field there gets the known ones listed. */
function issueSchema(raw: unknown): z.ZodType {
  const type = (raw as { auth?: { type?: unknown } } | null)?.auth?.type;
  const member = typeof type === 'string' && Object.hasOwn(AUTH_SCHEMAS, type) ? type : undefined;
  return member
    ? rawServerEntrySchema.extend({ auth: AUTH_SCHEMAS[member as keyof typeof AUTH_SCHEMAS] })
    : rawServerEntrySchema;
}

/**
 * The entry's credentials: `auth`, or the short form `api_key` (a bearer token, as the key is
 * sent). Both at once would leave it unclear which one is meant, so that is refused.
 */
function entryAuth(
  e: z.output<typeof rawServerEntrySchema>,
  transport: TransportConfig,
  source: EntrySource,
): AuthConfig | undefined {
  if (e.api_key === undefined) return e.auth ? normalizeAuth(e.auth) : undefined;
  if (e.auth !== undefined)
    throw configEntryError(
      source,
      e.name,
      'api_key',
      '"api_key" and "auth" are both set. Keep one: "api_key" is short for "auth": { "type": "bearer", "token": … }.',
    );
  if (transport.kind === 'stdio')
    throw configEntryError(
      source,
      e.name,
      'api_key',
      '"api_key" is for a remote server ("url"). Give a local server its key through "env".',
    );
  return { type: 'bearer', token: e.api_key };
}

function normalizeAuth(auth: NonNullable<z.output<typeof rawServerEntrySchema>['auth']>): AuthConfig {
  if (auth.type === 'bearer') return { type: 'bearer', token: auth.token };
  if (auth.type === 'api_key') return { type: 'bearer', token: auth.key };
  const { type: _type, grant, ...rest } = auth;
  return { type: 'oauth', grant: grant ?? 'authorization_code', ...rest };
}

function normalizeTransport(e: z.output<typeof rawServerEntrySchema>, source: EntrySource): TransportConfig {
  if (e.command !== undefined && e.url !== undefined) {
    throw configEntryError(
      source,
      e.name,
      'command',
      'both "command" and "url" are set. Keep "command" for a local server or "url" for a remote one.',
    );
  }
  const kind = e.transport ?? (e.command !== undefined ? 'stdio' : e.url !== undefined ? 'http' : undefined);
  if (kind === undefined) {
    throw configEntryError(
      source,
      e.name,
      'command',
      'neither "command" nor "url" is set. Add "command" (local server) or "url" (remote server).',
    );
  }
  if (kind === 'stdio') {
    if (e.command === undefined) {
      throw configEntryError(
        source,
        e.name,
        'command',
        'transport "stdio" needs "command". Add the program to run.',
      );
    }
    const stdio: StdioTransportConfig = {
      kind: 'stdio',
      command: e.command,
      args: e.args ?? [],
      env: e.env ?? {},
      ...(e.cwd !== undefined && { cwd: e.cwd }),
      ...(e.sandbox !== undefined && { sandbox: normalizeSandbox(e.sandbox) }),
    };
    return stdio;
  }
  if (e.url === undefined) {
    throw configEntryError(
      source,
      e.name,
      'url',
      `transport "${kind}" needs "url". Add the server's address.`,
    );
  }
  if (!e.url.includes('$')) {
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(e.url);
    } catch {
      throw configEntryError(
        source,
        e.name,
        'url',
        `${shownText(e.url)} is not a URL. Write it as http://host:port/path or https://…`,
      );
    }
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') {
      throw configEntryError(
        source,
        e.name,
        'url',
        `${shownText(e.url)} uses ${shownText(parsedUrl.protocol)}; only http: and https: are supported.`,
      );
    }
  }
  return { kind, url: e.url, headers: e.headers ?? {} };
}
