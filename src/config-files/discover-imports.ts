import { join } from 'node:path';
import { FOREIGN_CONFIG_MAX_BYTES } from '../core/config/config-text.js';
import { parseClaudeCodeConfig } from '../core/config/imports/claude-code.js';
import { parseClaudeDesktopConfig } from '../core/config/imports/claude-desktop.js';
import { parseCodexConfig } from '../core/config/imports/codex.js';
import { parseCursorConfig } from '../core/config/imports/cursor.js';
import type { ImportClient, ImportedEntry } from '../core/config/imports/import-entry.js';
import { parseVsCodeConfig } from '../core/config/imports/vscode.js';
import { parseWindsurfConfig } from '../core/config/imports/windsurf.js';
import { describeError, isSwitchboardError } from '../core/errors.js';
import { readTextIfExists } from './read-text.js';
import { type WriteEntriesResult, writeServerEntries } from './write-entries.js';

/** Where to look for other clients' configs. */
export interface DiscoverOptions {
  readonly projectDir: string;
  readonly homeDir: string;
  readonly platform: NodeJS.Platform;
  /** Windows `%APPDATA%`; defaults to `<homeDir>/AppData/Roaming`. */
  readonly appData?: string;
}

/** One existing config file of another client and what it holds. */
export interface DiscoveredImport {
  readonly client: ImportClient;
  readonly scope: 'user' | 'project';
  readonly file: string;
  readonly entries: readonly ImportedEntry[];
  readonly warnings: readonly string[];
  /** Set when the file exists but could not be read or parsed; `entries` is then empty. */
  readonly error?: string;
}

interface Candidate {
  readonly client: ImportClient;
  readonly scope: 'user' | 'project';
  readonly file: string;
  readonly parse: (
    text: string,
    file: string,
  ) => { entries: readonly ImportedEntry[]; warnings: readonly string[] };
}

/** Claude Desktop's config file on each platform. */
export function claudeDesktopConfigPath(options: Omit<DiscoverOptions, 'projectDir'>): string {
  if (options.platform === 'darwin') {
    return join(options.homeDir, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  }
  if (options.platform === 'win32') {
    return join(
      options.appData ?? join(options.homeDir, 'AppData', 'Roaming'),
      'Claude',
      'claude_desktop_config.json',
    );
  }
  return join(options.homeDir, '.config', 'Claude', 'claude_desktop_config.json');
}

function candidates(options: DiscoverOptions): Candidate[] {
  const { projectDir, homeDir } = options;
  const inProject = { projectDir };
  return [
    {
      client: 'claude-desktop',
      scope: 'user',
      file: claudeDesktopConfigPath(options),
      parse: parseClaudeDesktopConfig,
    },
    {
      client: 'claude-code',
      scope: 'project',
      file: join(projectDir, '.mcp.json'),
      parse: (t, f) => parseClaudeCodeConfig(t, f),
    },
    {
      client: 'claude-code',
      scope: 'user',
      file: join(homeDir, '.claude.json'),
      parse: (t, f) => parseClaudeCodeConfig(t, f, inProject),
    },
    {
      client: 'cursor',
      scope: 'project',
      file: join(projectDir, '.cursor', 'mcp.json'),
      parse: (t, f) => parseCursorConfig(t, f, inProject),
    },
    {
      client: 'cursor',
      scope: 'user',
      file: join(homeDir, '.cursor', 'mcp.json'),
      parse: (t, f) => parseCursorConfig(t, f),
    },
    {
      client: 'vscode',
      scope: 'project',
      file: join(projectDir, '.vscode', 'mcp.json'),
      parse: (t, f) => parseVsCodeConfig(t, f, inProject),
    },
    {
      client: 'windsurf',
      scope: 'user',
      file: join(homeDir, '.codeium', 'windsurf', 'mcp_config.json'),
      parse: parseWindsurfConfig,
    },
    { client: 'codex', scope: 'user', file: join(homeDir, '.codex', 'config.toml'), parse: parseCodexConfig },
  ];
}

/**
 * Lists the other clients' config files that exist and what each holds. Read-only: nothing
 * is written. A file that cannot be parsed is listed with its `error`, not thrown.
 */
export async function discoverImports(options: DiscoverOptions): Promise<DiscoveredImport[]> {
  const found: DiscoveredImport[] = [];
  for (const c of candidates(options)) {
    const base = { client: c.client, scope: c.scope, file: c.file };
    try {
      const text = await readTextIfExists(c.file, { maxBytes: FOREIGN_CONFIG_MAX_BYTES });
      if (text === undefined) continue;
      found.push({ ...base, ...c.parse(text, c.file) });
    } catch (error) {
      if (!isSwitchboardError(error)) throw error;
      found.push({ ...base, entries: [], warnings: [], error: describeError(error) });
    }
  }
  return found;
}

/** What `importInto` did, by server name, with the importer's warnings. */
export interface ImportIntoResult extends WriteEntriesResult {
  readonly warnings: readonly string[];
}

/**
 * Writes a discovered client's entries into our config file. A name already in our file
 * keeps our entry (reported in `skipped`) unless `overwrite` is set.
 */
export async function importInto(
  ourFile: string,
  discovered: Pick<DiscoveredImport, 'entries' | 'warnings'>,
  options: { readonly overwrite?: boolean } = {},
): Promise<ImportIntoResult> {
  const result = await writeServerEntries(
    ourFile,
    discovered.entries.map((e) => e.entry),
    { existing: options.overwrite ? 'replace' : 'keep' },
  );
  return { ...result, warnings: discovered.warnings };
}
