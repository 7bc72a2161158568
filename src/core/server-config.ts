import { z } from 'zod';
import { describeIssue, type FieldHints } from './config/issue-text.js';
import { SwitchboardError } from './errors.js';

/**
 * One upstream server's configuration: the raw shape people write (zod schema), and the
 * readonly normalized value the rest of Switchboard uses. Values keep their `${VAR}`
 * references; they are expanded when a connection starts, so a changed environment applies
 * on the next reconnect and secrets are never written back to a file.
 */

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

/** `auth`, passed through for the client layer: a bearer token, or OAuth settings. */
export type AuthConfig =
  | { readonly type: 'bearer'; readonly token: string; readonly [key: string]: unknown }
  | { readonly type: 'oauth'; readonly [key: string]: unknown };

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
  /** Roots for `roots/list`; undefined means "the working directory". */
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
  readonly description?: string;
  readonly title?: string;
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

export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

const stringRecord = z.record(z.string(), z.string());
const seconds = z.number().positive();

/** `auth`: passed through to the client layer; only its `type` and a bearer `token` are checked. */
const authSchema = z
  .discriminatedUnion('type', [
    z.looseObject({ type: z.literal('bearer'), token: z.string().min(1) }),
    z.looseObject({
      type: z.literal('oauth'),
      clientId: z.string().optional(),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).optional(),
    }),
  ])
  .describe(
    'How to authenticate to a remote server: { "type": "bearer", "token": "${TOKEN}" } or { "type": "oauth", … }.',
  );

/**
 * The fields of one server entry without its name: the value under `servers.<name>` in a
 * config file. Unknown fields are rejected (a typo must not be ignored silently).
 */
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
  url: z.string().optional().describe('Address of a remote server (http: or https:).'),
  headers: stringRecord.optional().describe('HTTP headers sent to a remote server.'),
  auth: authSchema.optional(),
  enabled: z
    .boolean()
    .optional()
    .meta({ default: true, description: 'false keeps the entry but does not start it.' }),
  timeouts: z
    .strictObject({
      connect: seconds.optional().meta({ default: 60, description: 'Seconds for spawn and handshake.' }),
      request: seconds
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
  roots: z
    .array(z.strictObject({ uri: z.string(), name: z.string().optional() }))
    .optional()
    .describe('Roots offered on roots/list (default: the working directory).'),
});

/** The raw shape of one server entry with its name, as sent to the API or given to normalize. */
export const rawServerEntrySchema = z.strictObject({
  name: z.string().regex(SERVER_NAME_PATTERN, 'use only letters, digits, "_", "." and "-"'),
  ...serverEntryFieldsSchema.shape,
});

export type RawServerEntry = z.input<typeof rawServerEntrySchema>;
/** A raw entry without its name: the value under `servers.<name>` in a config file. */
export type RawServerEntryFields = z.input<typeof serverEntryFieldsSchema>;

/** How each field is written, appended to type errors. */
const FIELD_HINTS: FieldHints = {
  command: 'the program as a string, e.g. "npx"',
  args: 'a list of strings, e.g. ["-y", "@modelcontextprotocol/server-filesystem"]',
  env: 'an object of strings, e.g. { "API_KEY": "${API_KEY}" }',
  headers: 'an object of strings, e.g. { "Authorization": "Bearer ${TOKEN}" }',
  enabled: 'true or false',
  'timeouts.connect': 'a number of seconds above 0, e.g. 60',
  'timeouts.request': 'a number of seconds above 0, e.g. 120',
  'timeouts.startup': 'a number of seconds above 0, e.g. 120',
  'tools.include': 'a list of tool-name globs, e.g. ["read_*"]',
  'tools.exclude': 'a list of tool-name globs, e.g. ["delete_*"]',
  roots: 'a list like [{ "uri": "file:///home/me/project" }]',
  'auth.token': 'the token as a string, e.g. "${API_TOKEN}"',
};

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
  return new SwitchboardError('CONFIG_INVALID', `${where}server "${entry}", field "${field}": ${problem}`, {
    details: { file: source.file, server: entry, field },
  });
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
    const { field, problem } = describeIssue(parsed.error.issues[0]!, rawServerEntrySchema, FIELD_HINTS);
    throw configEntryError(source, rawName, field, problem);
  }
  const e = parsed.data;
  const transport = normalizeTransport(e, source);

  const protocol = parseProtocolMode(e.protocol);
  if (!protocol) {
    throw configEntryError(
      source,
      e.name,
      'protocol',
      `"${e.protocol}" is not a protocol mode. Use "auto", "modern", "legacy" or one of ${KNOWN_PROTOCOL_VERSIONS.join(', ')}.`,
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
    ...(e.auth ? { auth: e.auth as AuthConfig } : {}),
    trust: e.trust ?? 'untrusted',
    tools,
    deferral: e.deferral ?? 'deferred',
    ...(e.description !== undefined ? { description: e.description } : {}),
    ...(e.title !== undefined ? { title: e.title } : {}),
  };
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
    };
    return e.cwd !== undefined ? { ...stdio, cwd: e.cwd } : stdio;
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
        `"${e.url}" is not a URL. Write it as http://host:port/path or https://…`,
      );
    }
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') {
      throw configEntryError(
        source,
        e.name,
        'url',
        `"${e.url}" uses ${parsedUrl.protocol}; only http: and https: are supported.`,
      );
    }
  }
  return { kind, url: e.url, headers: e.headers ?? {} };
}
