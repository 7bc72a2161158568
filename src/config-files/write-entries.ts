import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import { normalizeConfigFile, parseConfigText } from '../core/config/config-file.js';
import { SwitchboardError } from '../core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../core/server-config.js';
import { writeFileAtomic } from './atomic-write.js';
import { readTextIfExists } from './load-config.js';

/** What to do with an entry whose name is already in the file. */
export interface WriteEntriesOptions {
  /** `replace` (default) updates the entry; `keep` leaves the file's entry and skips ours. */
  readonly existing?: 'replace' | 'keep';
}

/** Names written, by what happened to them. */
export interface WriteEntriesResult {
  readonly added: readonly string[];
  readonly updated: readonly string[];
  readonly skipped: readonly string[];
}

/**
 * Adds or updates server entries in one of our config files, atomically. The rest of the
 * file (other entries, `$schema`, comments, formatting) is kept: jsonc-parser edits the text
 * in place rather than re-serializing it. Every entry is checked before anything is written,
 * and the edited text is checked again, so a write never leaves an invalid file; a file that
 * does not parse is refused rather than overwritten.
 */
export async function writeServerEntries(
  file: string,
  entries: readonly RawServerEntry[],
  options: WriteEntriesOptions = {},
): Promise<WriteEntriesResult> {
  for (const entry of entries) normalizeServerEntry(entry, { file });
  const original = await readTextIfExists(file);
  let text = original ?? '{\n  "servers": {}\n}\n';
  const current = parseConfigText(text, file);
  const existingNames = new Set(normalizeConfigFile(current, file).servers.map((s) => s.name));
  const formatting = formattingOf(text);
  const added: string[] = [];
  const updated: string[] = [];
  const skipped: string[] = [];
  for (const { name, ...fields } of entries) {
    if (existingNames.has(name)) {
      if (options.existing === 'keep') {
        skipped.push(name);
        continue;
      }
      updated.push(name);
    } else {
      added.push(name);
    }
    text = applyEdits(text, modify(text, ['servers', name], fields, { formattingOptions: formatting }));
    existingNames.add(name);
  }
  if (added.length + updated.length === 0) return { added, updated, skipped };
  try {
    normalizeConfigFile(parseConfigText(text, file), file);
  } catch (error) {
    throw new SwitchboardError(
      'CONFIG_WRITE_FAILED',
      `Editing ${file} produced an invalid file; nothing was written.`,
      {
        cause: error,
        details: { file },
      },
    );
  }
  await writeFileAtomic(file, text);
  return { added, updated, skipped };
}

/** The file's own indentation and line ends, so edits look like the rest of it. */
export function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)"/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}
