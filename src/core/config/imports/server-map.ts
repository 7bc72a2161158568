import { shownName } from '../server-name.js';
import {
  type ForeignFields,
  finishEntry,
  foreignTransport,
  type ImportContext,
  type ImportedEntry,
  isRecord,
  stringList,
  stringRecord,
} from './import-entry.js';

/**
 * The `mcpServers` map most clients share (Claude Desktop, Claude Code, Cursor, Windsurf, and
 * VS Code's `servers`): `{ "<name>": { command, args, env, cwd } | { type?, url, headers } }`.
 */

/** Per-client differences of the shared map format. */
export interface ServerMapOptions {
  /** Where the map sits in the file, for warnings (`mcpServers`). */
  readonly where: string;
  /** Field names holding a remote server's URL, first found wins (Windsurf: `serverUrl`). */
  readonly urlFields?: readonly string[];
  /** Fields the client knows that carry nothing for Switchboard: dropped without a warning. */
  readonly ignoredFields?: readonly string[];
}

const HANDLED = [
  'type',
  'transport',
  'command',
  'args',
  'env',
  'cwd',
  'headers',
  'disabled',
  'enabled',
  'disabledTools',
];

/** Converts every entry of a server map; entries that cannot be carried over become warnings. */
export function convertServerMap(
  map: unknown,
  ctx: ImportContext,
  options: ServerMapOptions,
): ImportedEntry[] {
  if (map === undefined) return [];
  if (!isRecord(map)) {
    ctx.warnings.push(`${ctx.file}: "${options.where}" is not an object; nothing was imported from it.`);
    return [];
  }
  const urlFields = options.urlFields ?? ['url'];
  const entries: ImportedEntry[] = [];
  for (const [name, value] of Object.entries(map)) {
    const where = `server "${shownName(name)}"`;
    if (!isRecord(value)) {
      ctx.warnings.push(`${where} is not an object and was not imported.`);
      continue;
    }
    const w = ctx.warnings;
    const urlField = urlFields.find((f) => typeof value[f] === 'string');
    let fields: ForeignFields = {
      transport: foreignTransport(value.type ?? value.transport, where, w),
      command: typeof value.command === 'string' ? value.command : undefined,
      args: stringList(value.args, `${where}, args`, w),
      env: stringRecord(value.env, `${where}, env`, w),
      cwd: typeof value.cwd === 'string' ? value.cwd : undefined,
      url: urlField ? (value[urlField] as string) : undefined,
      headers: stringRecord(value.headers, `${where}, headers`, w),
      enabled: value.disabled === true || value.enabled === false ? false : undefined,
    };
    // Windsurf (and Cline) name tools to hide in `disabledTools`.
    const disabledTools = stringList(value.disabledTools, `${where}, disabledTools`, w);
    if (disabledTools?.length) fields = { ...fields, extra: { tools: { exclude: disabledTools } } };
    const skipped = Object.keys(value).filter(
      (k) => !HANDLED.includes(k) && !urlFields.includes(k) && !options.ignoredFields?.includes(k),
    );
    if (skipped.length > 0) {
      w.push(
        `${where}: ${skipped.map((k) => `"${k}"`).join(', ')} not imported (no Switchboard equivalent).`,
      );
    }
    const entry = finishEntry(name, fields, ctx);
    if (entry) entries.push(entry);
  }
  return entries;
}
