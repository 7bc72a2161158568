import { FOREIGN_CONFIG_LIMITS, parseConfigText } from '../config-text.js';
import { type ImportContext, type ImportResult, isRecord } from './import-entry.js';
import { convertServerMap } from './server-map.js';

/**
 * Windsurf: `~/.codeium/windsurf/mcp_config.json`, servers under `mcpServers`; a remote
 * server's address is `serverUrl` (older files: `url`); values may use `${env:VAR}`.
 */
export function parseWindsurfConfig(text: string, file: string): ImportResult {
  const raw = parseConfigText(text, file, FOREIGN_CONFIG_LIMITS);
  const ctx: ImportContext = { client: 'windsurf', file, variables: { style: 'editor' }, warnings: [] };
  const entries = isRecord(raw)
    ? convertServerMap(raw.mcpServers, ctx, {
        where: 'mcpServers',
        urlFields: ['serverUrl', 'url'],
      })
    : [];
  return { entries, warnings: ctx.warnings };
}
