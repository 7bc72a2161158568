import type { z } from 'zod';
import {
  FIELD_HINTS,
  type RawServerEntry,
  type RawServerEntryFields,
  rawServerEntrySchema,
  SERVER_NAME_PATTERN,
  serverEntryFieldsSchema,
} from './config/entry-schema.js';
import { describeIssue } from './config/issue-text.js';
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
