import { FOREIGN_CONFIG_LIMITS, parseConfigText } from '../config-text.js';
import { type ImportContext, type ImportResult, isRecord } from './import-entry.js';
import { convertServerMap } from './server-map.js';

/** Where a Cursor file is read: `projectDir` resolves `${workspaceFolder}` in a project file. */
export interface CursorImportOptions {
  readonly projectDir?: string;
}

/**
 * Cursor: `.cursor/mcp.json` (project) and `~/.cursor/mcp.json` (user), servers under
 * `mcpServers`; values may use `${env:VAR}`, `${userHome}` and `${workspaceFolder}`.
 */
export function parseCursorConfig(
  text: string,
  file: string,
  options: CursorImportOptions = {},
): ImportResult {
  const raw = parseConfigText(text, file, FOREIGN_CONFIG_LIMITS);
  const ctx: ImportContext = {
    client: 'cursor',
    file,
    variables: {
      style: 'editor',
      ...(options.projectDir !== undefined ? { projectDir: options.projectDir } : {}),
    },
    warnings: [],
  };
  const entries = isRecord(raw) ? convertServerMap(raw.mcpServers, ctx, { where: 'mcpServers' }) : [];
  return { entries, warnings: ctx.warnings };
}
