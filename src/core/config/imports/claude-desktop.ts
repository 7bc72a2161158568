import { FOREIGN_CONFIG_LIMITS, parseConfigText } from '../config-text.js';
import { type ImportContext, type ImportResult, isRecord } from './import-entry.js';
import { convertServerMap } from './server-map.js';

/**
 * Claude Desktop: `claude_desktop_config.json`, servers under `mcpServers`. Claude Desktop
 * expands no variables, so a `$` in a value is kept literal (`$$`).
 */
export function parseClaudeDesktopConfig(text: string, file: string): ImportResult {
  const raw = parseConfigText(text, file, FOREIGN_CONFIG_LIMITS);
  const ctx: ImportContext = {
    client: 'claude-desktop',
    file,
    variables: { style: 'literal' },
    warnings: [],
  };
  const entries = isRecord(raw) ? convertServerMap(raw.mcpServers, ctx, { where: 'mcpServers' }) : [];
  return { entries, warnings: ctx.warnings };
}
