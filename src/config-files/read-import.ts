import { FOREIGN_CONFIG_MAX_BYTES } from '../core/config/config-text.js';
import { parseClaudeCodeConfig } from '../core/config/imports/claude-code.js';
import { parseClaudeDesktopConfig } from '../core/config/imports/claude-desktop.js';
import { parseCodexConfig } from '../core/config/imports/codex.js';
import { parseCursorConfig } from '../core/config/imports/cursor.js';
import type { ImportClient, ImportResult } from '../core/config/imports/import-entry.js';
import { parseVsCodeConfig } from '../core/config/imports/vscode.js';
import { parseWindsurfConfig } from '../core/config/imports/windsurf.js';
import { SwitchboardError } from '../core/errors.js';
import { readTextIfExists } from './read-text.js';

/** Every client `readImportFile` knows, in the order people usually name them. */
export const IMPORT_CLIENTS: readonly ImportClient[] = [
  'claude-desktop',
  'claude-code',
  'cursor',
  'vscode',
  'windsurf',
  'codex',
];

const PARSERS: Readonly<
  Record<ImportClient, (text: string, file: string, projectDir: string) => ImportResult>
> = {
  'claude-desktop': (text, file) => parseClaudeDesktopConfig(text, file),
  'claude-code': (text, file, projectDir) => parseClaudeCodeConfig(text, file, { projectDir }),
  cursor: (text, file, projectDir) => parseCursorConfig(text, file, { projectDir }),
  vscode: (text, file, projectDir) => parseVsCodeConfig(text, file, { projectDir }),
  windsurf: (text, file) => parseWindsurfConfig(text, file),
  codex: (text, file) => parseCodexConfig(text, file),
};

/**
 * Reads one config file of another client that a person pointed at (rather than one found by
 * `discoverImports`) with that client's importer. `projectDir` resolves project-relative
 * variables (`${workspaceFolder}`) and picks a project's local servers out of `~/.claude.json`.
 * A missing file is NOT_FOUND; one that does not parse is CONFIG_INVALID.
 */
export async function readImportFile(
  client: ImportClient,
  file: string,
  options: { readonly projectDir: string },
): Promise<ImportResult> {
  const text = await readTextIfExists(file, { maxBytes: FOREIGN_CONFIG_MAX_BYTES });
  if (text === undefined) {
    throw new SwitchboardError('NOT_FOUND', `${file} does not exist. Check the path given with --path.`, {
      details: { file },
    });
  }
  return PARSERS[client](text, file, options.projectDir);
}
