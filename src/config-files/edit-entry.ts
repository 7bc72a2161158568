import { applyEdits, type JSONPath, modify } from 'jsonc-parser';
import { readConfigText } from '../core/config/config-file.js';
import { writeFileAtomic } from './atomic-write.js';
import { withConfigLock } from './config-lock.js';
import { readTextIfExists } from './read-text.js';
import { checkEdit, entryNames, formattingOf } from './write-entries.js';

/**
 * Edits one existing server entry of one of our config files in place: removing it, or
 * turning it on or off. Like `writeServerEntries`, the edit holds the file's lock, the rest of
 * the file (comments, order, formatting) is kept, the edited text is checked before it is
 * written, and the write is atomic. An entry that does not normalize can still be removed
 * (that is how it is fixed), and the file's other invalid entries do not stand in the way.
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

function editEntry(file: string, name: string, path: JSONPath, value: unknown): Promise<boolean> {
  return withConfigLock(file, async () => {
    const original = await readTextIfExists(file);
    if (original === undefined) return false;
    const before = readConfigText(original, file, { invalidEntries: 'collect' });
    if (!entryNames(before).includes(name)) return false;
    const edits = modify(original, path, value, { formattingOptions: formattingOf(original) });
    if (edits.length === 0) return true;
    const text = applyEdits(original, edits);
    // A removed entry is written by nobody; a toggled one must stay as valid as it was.
    checkEdit(before, text, file, []);
    await writeFileAtomic(file, text);
    return true;
  });
}
