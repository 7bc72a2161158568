import { FOREIGN_CONFIG_LIMITS, parseConfigText } from '../config-text.js';
import { type ImportContext, type ImportedEntry, type ImportResult, isRecord } from './import-entry.js';
import { convertServerMap } from './server-map.js';

/** Which project's local servers to take from `~/.claude.json`. */
export interface ClaudeCodeImportOptions {
  readonly projectDir?: string;
}

/**
 * Claude Code: `.mcp.json` in a project (`mcpServers`), and `~/.claude.json` with user servers
 * in top-level `mcpServers` and local ones in `projects[<dir>].mcpServers`. A local server
 * replaces a user server of the same name, as in Claude Code. Entries may carry
 * `type: "stdio" | "http" | "sse"`; `${VAR}` and `${VAR:-default}` mean what they mean here.
 */
export function parseClaudeCodeConfig(
  text: string,
  file: string,
  options: ClaudeCodeImportOptions = {},
): ImportResult {
  const raw = parseConfigText(text, file, FOREIGN_CONFIG_LIMITS);
  const ctx: ImportContext = { client: 'claude-code', file, variables: { style: 'shell' }, warnings: [] };
  if (!isRecord(raw)) return { entries: [], warnings: [`${file}: not an object; nothing was imported.`] };
  const user = convertServerMap(raw.mcpServers, ctx, { where: 'mcpServers' });
  const project = projectEntry(raw.projects, options.projectDir);
  const local = project
    ? convertServerMap(project.value.mcpServers, ctx, { where: `projects["${project.key}"].mcpServers` })
    : [];
  const localNames = new Set(local.map((e) => e.entry.name));
  const entries: ImportedEntry[] = [...user.filter((e) => !localNames.has(e.entry.name)), ...local];
  return { entries, warnings: ctx.warnings };
}

function projectEntry(
  projects: unknown,
  projectDir: string | undefined,
): { key: string; value: Record<string, unknown> } | undefined {
  if (projectDir === undefined || !isRecord(projects)) return undefined;
  const wanted = projectDir.replace(/[\\/]+$/, '');
  for (const [key, value] of Object.entries(projects)) {
    if (key.replace(/[\\/]+$/, '') === wanted && isRecord(value)) return { key, value };
  }
  return undefined;
}
