import { z } from 'zod';
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

/** The normalized, readonly configuration of one upstream server. */
export interface ServerConfig {
  readonly name: string;
  readonly transport: TransportConfig;
  readonly timeouts: Timeouts;
  readonly protocol: ProtocolMode;
  /** Roots for `roots/list`; undefined means "the working directory". */
  readonly roots?: readonly RootConfig[];
}

/** Known protocol revisions, newest first. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const KNOWN_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 60_000, requestMs: 120_000 };
const REQUEST_TIMEOUT_RANGE_S = [1, 3600] as const;

export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

const stringRecord = z.record(z.string(), z.string());

/** The raw shape of one server entry, as written in a config file or sent to the API. */
export const rawServerEntrySchema = z
  .object({
    name: z.string().regex(SERVER_NAME_PATTERN, 'use only letters, digits, "_", "." and "-"'),
    transport: z.enum(['stdio', 'http', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: stringRecord.optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    headers: stringRecord.optional(),
    timeouts: z
      .object({
        connect: z.number().positive().optional(),
        request: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    protocol: z.string().optional(),
    roots: z.array(z.object({ uri: z.string(), name: z.string().optional() })).optional(),
  })
  .passthrough();

export type RawServerEntry = z.input<typeof rawServerEntrySchema>;

/** Where an entry came from, for error messages. */
export interface EntrySource {
  readonly file?: string;
}

function invalid(source: EntrySource, entry: string, field: string, problem: string): SwitchboardError {
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
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(entry)';
    throw invalid(source, rawName, field, `${issue.message}. Fix the value and try again.`);
  }
  const e = parsed.data;
  const transport = normalizeTransport(e, source);

  const protocol = parseProtocolMode(e.protocol);
  if (!protocol) {
    throw invalid(
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
  const config: ServerConfig = { name: e.name, transport, timeouts, protocol };
  return e.roots ? { ...config, roots: e.roots } : config;
}

function normalizeTransport(e: z.output<typeof rawServerEntrySchema>, source: EntrySource): TransportConfig {
  if (e.command !== undefined && e.url !== undefined) {
    throw invalid(
      source,
      e.name,
      'command',
      'both "command" and "url" are set. Keep "command" for a local server or "url" for a remote one.',
    );
  }
  const kind = e.transport ?? (e.command !== undefined ? 'stdio' : e.url !== undefined ? 'http' : undefined);
  if (kind === undefined) {
    throw invalid(
      source,
      e.name,
      'command',
      'neither "command" nor "url" is set. Add "command" (local server) or "url" (remote server).',
    );
  }
  if (kind === 'stdio') {
    if (e.command === undefined) {
      throw invalid(source, e.name, 'command', 'transport "stdio" needs "command". Add the program to run.');
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
    throw invalid(source, e.name, 'url', `transport "${kind}" needs "url". Add the server's address.`);
  }
  if (!e.url.includes('$')) {
    let parsedUrl: URL;
    try {
      parsedUrl = new URL(e.url);
    } catch {
      throw invalid(
        source,
        e.name,
        'url',
        `"${e.url}" is not a URL. Write it as http://host:port/path or https://…`,
      );
    }
    if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') {
      throw invalid(
        source,
        e.name,
        'url',
        `"${e.url}" uses ${parsedUrl.protocol}; only http: and https: are supported.`,
      );
    }
  }
  return { kind, url: e.url, headers: e.headers ?? {} };
}
