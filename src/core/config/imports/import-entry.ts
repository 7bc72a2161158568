import { describeError } from '../../errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../server-config.js';
import { isServerName, SERVER_NAME_MAX_LENGTH, SERVER_NAME_RULE, shownName } from '../server-name.js';
import { convertVariables, type VariableContext } from './variables.js';

/**
 * What every importer shares: the result type, and turning one foreign server entry into a
 * checked Switchboard entry (name made valid, variables rewritten, unknown fields reported).
 */

/** The clients whose config files Switchboard can import. */
export type ImportClient = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode' | 'windsurf' | 'codex';

/** One imported server: a valid raw entry (with its name) and where it came from. */
export interface ImportedEntry {
  /** `<client>:<file>`, e.g. `claude-desktop:/home/me/.config/Claude/claude_desktop_config.json`. */
  readonly source: string;
  readonly entry: RawServerEntry;
}

/** What an importer found: the entries it could carry over and a sentence per thing it could not. */
export interface ImportResult {
  readonly entries: readonly ImportedEntry[];
  readonly warnings: readonly string[];
}

/** The common fields of an `mcpServers`-style entry, already read off the foreign object. */
export interface ForeignFields {
  readonly transport?: 'stdio' | 'http' | 'sse';
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly enabled?: boolean;
  readonly extra?: Partial<RawServerEntry>;
}

/** Per-file context of an import. */
export interface ImportContext {
  readonly client: ImportClient;
  readonly file: string;
  readonly variables: Omit<VariableContext, 'warn'>;
  readonly warnings: string[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A record of strings, or undefined; non-string values are reported and dropped. */
export function stringRecord(
  value: unknown,
  where: string,
  warnings: string[],
): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    warnings.push(`${where} is not an object of strings and was not imported.`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') out[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[key] = String(v);
    else warnings.push(`${where}.${key} is not a string and was not imported.`);
  }
  return out;
}

/** A list of strings, or undefined; anything else is reported. */
export function stringList(value: unknown, where: string, warnings: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  warnings.push(`${where} is not a list of strings and was not imported.`);
  return undefined;
}

/**
 * A name Switchboard accepts (server-name.ts): runs of other characters become "-", what does
 * not start with a letter or digit loses its start, and a name past 64 characters is cut.
 */
export function validServerName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, SERVER_NAME_MAX_LENGTH)
    .replace(/[-.]+$/, '');
  return cleaned === '' ? 'server' : cleaned;
}

/**
 * Builds and checks one entry. Returns undefined (with a warning) when the result would not
 * be a valid Switchboard entry, so an import never writes an entry that fails to load.
 */
export function finishEntry(
  name: string,
  fields: ForeignFields,
  ctx: ImportContext,
): ImportedEntry | undefined {
  const validName = isServerName(name) ? name : validServerName(name);
  if (validName !== name)
    ctx.warnings.push(`server "${shownName(name)}" was renamed "${validName}" (${SERVER_NAME_RULE}).`);
  const vars: VariableContext = { ...ctx.variables, warn: (m) => ctx.warnings.push(m) };
  const at = (field: string) => `server "${validName}", ${field}`;
  const text = (value: string, field: string) => convertVariables(value, at(field), vars);
  const record = (values: Readonly<Record<string, string>> | undefined, field: string) =>
    values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, text(v, `${field}.${k}`)]));
  const entry: RawServerEntry = {
    name: validName,
    ...(fields.transport ? { transport: fields.transport } : {}),
    ...(fields.command !== undefined ? { command: text(fields.command, 'command') } : {}),
    ...(fields.args ? { args: fields.args.map((a, i) => text(a, `args[${i}]`)) } : {}),
    ...(fields.env ? { env: record(fields.env, 'env') } : {}),
    ...(fields.cwd !== undefined ? { cwd: text(fields.cwd, 'cwd') } : {}),
    ...(fields.url !== undefined ? { url: text(fields.url, 'url') } : {}),
    ...(fields.headers ? { headers: record(fields.headers, 'headers') } : {}),
    ...(fields.enabled === false ? { enabled: false } : {}),
    ...fields.extra,
  };
  try {
    normalizeServerEntry(entry, { file: ctx.file });
  } catch (error) {
    ctx.warnings.push(`server "${shownName(name)}" was not imported: ${describeError(error)}`);
    return undefined;
  }
  return { source: `${ctx.client}:${ctx.file}`, entry };
}

/** The transport named by a foreign `type` field; unknown values are reported. */
export function foreignTransport(
  value: unknown,
  where: string,
  warnings: string[],
): ForeignFields['transport'] {
  if (value === undefined) return undefined;
  if (value === 'stdio' || value === 'http' || value === 'sse') return value;
  if (value === 'streamable-http' || value === 'streamableHttp' || value === 'streamable_http') return 'http';
  warnings.push(
    `${where}: type ${JSON.stringify(value)} is not known; the transport is inferred from command/url.`,
  );
  return undefined;
}
