import { parse as parseToml, TomlError } from 'smol-toml';
import { SwitchboardError } from '../../errors.js';
import type { RawServerEntry } from '../../server-config.js';
import { shownName } from '../server-name.js';
import {
  finishEntry,
  type ImportContext,
  type ImportedEntry,
  type ImportResult,
  isRecord,
  stringList,
  stringRecord,
} from './import-entry.js';

/**
 * Codex: `~/.codex/config.toml`, one `[mcp_servers.<name>]` table per server: `command`,
 * `args`, `env`, `env_vars` (names passed through), `cwd`; or `url` with
 * `bearer_token_env_var`, `http_headers`, `env_http_headers`; plus `enabled`,
 * `startup_timeout_sec` (or `_ms`), `tool_timeout_sec`, `enabled_tools`, `disabled_tools`.
 * Codex expands no variables in values, so `$` is kept literal.
 */
export function parseCodexConfig(text: string, file: string): ImportResult {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text);
  } catch (error) {
    const at = error instanceof TomlError ? `:${error.line}:${error.column}` : '';
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new SwitchboardError('CONFIG_INVALID', `${file}${at}: ${reason}. Fix the TOML there.`, {
      cause: error,
      details: { file },
    });
  }
  const ctx: ImportContext = { client: 'codex', file, variables: { style: 'literal' }, warnings: [] };
  const servers = raw.mcp_servers;
  if (servers === undefined) return { entries: [], warnings: [] };
  if (!isRecord(servers)) return { entries: [], warnings: [`${file}: "mcp_servers" is not a table.`] };
  const entries: ImportedEntry[] = [];
  for (const [name, value] of Object.entries(servers)) {
    if (!isRecord(value)) {
      ctx.warnings.push(`server "${shownName(name)}" is not a table and was not imported.`);
      continue;
    }
    const entry = convertCodexServer(name, value, ctx);
    if (entry) entries.push(entry);
  }
  return { entries, warnings: ctx.warnings };
}

const HANDLED = [
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  'url',
  'bearer_token_env_var',
  'http_headers',
  'env_http_headers',
  'enabled',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'enabled_tools',
  'disabled_tools',
];

function convertCodexServer(
  name: string,
  v: Record<string, unknown>,
  ctx: ImportContext,
): ImportedEntry | undefined {
  const where = `server "${shownName(name)}"`;
  const w = ctx.warnings;
  // Values already in Switchboard syntax go through `extra`: literal text escaped, and the
  // variables Codex reads from its environment (env_vars, env_http_headers, bearer token).
  const extra: Partial<RawServerEntry> = {};
  const env = literalRecord(stringRecord(v.env, `${where}, env`, w));
  for (const variable of stringList(v.env_vars, `${where}, env_vars`, w) ?? [])
    env[variable] ??= `\${${variable}}`;
  if (Object.keys(env).length > 0) extra.env = env;
  const headers = literalRecord(stringRecord(v.http_headers, `${where}, http_headers`, w));
  const headerVars = stringRecord(v.env_http_headers, `${where}, env_http_headers`, w) ?? {};
  for (const [header, variable] of Object.entries(headerVars)) headers[header] = `\${${variable}}`;
  if (Object.keys(headers).length > 0) extra.headers = headers;
  if (typeof v.bearer_token_env_var === 'string') {
    extra.auth = { type: 'bearer', token: `\${${v.bearer_token_env_var}}` };
  }
  const startup = seconds(v.startup_timeout_sec) ?? (seconds(v.startup_timeout_ms) ?? 0) / 1000;
  const request = seconds(v.tool_timeout_sec);
  if (startup || request) {
    extra.timeouts = { ...(startup ? { startup } : {}), ...(request ? { request } : {}) };
  }
  const include = stringList(v.enabled_tools, `${where}, enabled_tools`, w);
  const exclude = stringList(v.disabled_tools, `${where}, disabled_tools`, w);
  if (include || exclude) extra.tools = { ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) };
  const skipped = Object.keys(v).filter((k) => !HANDLED.includes(k));
  if (skipped.length > 0) w.push(`${where}: ${skipped.map((k) => `"${k}"`).join(', ')} not imported.`);
  return finishEntry(
    name,
    {
      command: typeof v.command === 'string' ? v.command : undefined,
      args: stringList(v.args, `${where}, args`, w),
      cwd: typeof v.cwd === 'string' ? v.cwd : undefined,
      url: typeof v.url === 'string' ? v.url : undefined,
      enabled: v.enabled === false ? false : undefined,
      extra,
    },
    ctx,
  );
}

function literalRecord(values: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([k, value]) => [k, value.replaceAll('$', () => '$$')]),
  );
}

function seconds(value: unknown): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}
