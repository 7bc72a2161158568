import { FOREIGN_CONFIG_LIMITS, parseConfigText } from '../config-text.js';
import { type ImportContext, type ImportResult, isRecord } from './import-entry.js';
import { convertServerMap } from './server-map.js';

/** `projectDir` resolves `${workspaceFolder}`. */
export interface VsCodeImportOptions {
  readonly projectDir?: string;
}

/**
 * VS Code: `.vscode/mcp.json` with `servers` and `inputs`. An input is a prompt VS Code shows
 * on first start; Switchboard reads the environment instead, so `${input:api-key}` becomes
 * `${API_KEY}` and a warning names the variable to set (and the input's description).
 */
export function parseVsCodeConfig(
  text: string,
  file: string,
  options: VsCodeImportOptions = {},
): ImportResult {
  const raw = parseConfigText(text, file, FOREIGN_CONFIG_LIMITS);
  if (!isRecord(raw)) return { entries: [], warnings: [`${file}: not an object; nothing was imported.`] };
  const inputs: Record<string, string | undefined> = {};
  if (Array.isArray(raw.inputs)) {
    for (const input of raw.inputs) {
      if (isRecord(input) && typeof input.id === 'string') {
        inputs[input.id] = typeof input.description === 'string' ? input.description : undefined;
      }
    }
  }
  const ctx: ImportContext = {
    client: 'vscode',
    file,
    variables: {
      style: 'editor',
      inputs,
      ...(options.projectDir !== undefined ? { projectDir: options.projectDir } : {}),
    },
    warnings: [],
  };
  const entries = convertServerMap(raw.servers, ctx, {
    where: 'servers',
    ignoredFields: ['dev', 'gallery', 'version'],
  });
  return { entries, warnings: ctx.warnings };
}
