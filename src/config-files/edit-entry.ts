import { applyEdits, type JSONPath, modify } from 'jsonc-parser';
import { normalizeConfigFile, parseConfigText } from '../core/config/config-file.js';
import { SwitchboardError } from '../core/errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { readTextIfExists } from './load-config.js';
import { formattingOf } from './write-entries.js';

/**
 * Edits one existing server entry of one of our config files in place: removing it, or
 * turning it on or off. Like `writeServerEntries`, the rest of the file (comments, order,
 * formatting) is kept, the edited text is checked before it is written, and the write is
 * atomic.
 */

/**
 * Removes the entry called `name`. Returns false, writing nothing, when the file (or the
 * entry) does not exist.
 */
export async function removeServerEntry(file: string, name: string): Promise<boolean> {
  return editEntry(file, name, ['servers', name], undefined);
}

/**
 * Sets whether the entry called `name` starts: disabling writes `"enabled": false`; enabling
 * removes the field, on being the default. Returns false when the file (or the entry) does
 * not exist; true when the entry is there, whether or not its text changed.
 */
export async function setServerEnabled(file: string, name: string, enabled: boolean): Promise<boolean> {
  return editEntry(file, name, ['servers', name, 'enabled'], enabled ? undefined : false);
}

async function editEntry(file: string, name: string, path: JSONPath, value: unknown): Promise<boolean> {
  const original = await readTextIfExists(file);
  if (original === undefined) return false;
  const names = normalizeConfigFile(parseConfigText(original, file), file).servers.map((s) => s.name);
  if (!names.includes(name)) return false;
  const edits = modify(original, path, value, { formattingOptions: formattingOf(original) });
  if (edits.length === 0) return true;
  const text = applyEdits(original, edits);
  try {
    normalizeConfigFile(parseConfigText(text, file), file);
  } catch (error) {
    throw new SwitchboardError(
      'CONFIG_WRITE_FAILED',
      `Editing server "${name}" in ${file} produced an invalid file; nothing was written.`,
      { cause: error, details: { file, server: name } },
    );
  }
  await writeFileAtomic(file, text);
  return true;
}
