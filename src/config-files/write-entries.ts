import { applyEdits, type FormattingOptions, modify } from 'jsonc-parser';
import { type ConfigFile, readConfigText } from '../core/config/config-file.js';
import { SwitchboardError } from '../core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../core/server-config.js';
import { writeFileAtomic } from './atomic-write.js';
import { withConfigLock } from './config-lock.js';
import { readTextIfExists } from './read-text.js';

/** What to do with an entry whose name is already in the file. */
export interface WriteEntriesOptions {
  /**
   * `replace` (default) updates the entry; `keep` leaves the file's entry and skips ours;
   * `refuse` writes nothing and throws INVALID_ARGUMENT (`details.reason: 'exists'`).
   */
  readonly existing?: 'replace' | 'keep' | 'refuse';
}

/** Names written, by what happened to them. */
export interface WriteEntriesResult {
  readonly added: readonly string[];
  readonly updated: readonly string[];
  readonly skipped: readonly string[];
}

/**
 * Adds or updates server entries in one of our config files, atomically and under the file's
 * lock (config-lock.ts), so concurrent edits all land. The rest of the file (other entries,
 * `$schema`, comments, formatting) is kept: jsonc-parser edits the text in place rather than
 * re-serializing it. Every entry is checked before anything is written, and the edited text
 * is checked again, so a write never breaks an entry; a file that does not parse is refused
 * rather than overwritten. Entries of the file that were invalid before may stay so.
 */
export async function writeServerEntries(
  file: string,
  entries: readonly RawServerEntry[],
  options: WriteEntriesOptions = {},
): Promise<WriteEntriesResult> {
  for (const entry of entries) normalizeServerEntry(entry, { file });
  return withConfigLock(file, async () => {
    const original = await readTextIfExists(file);
    let text = original ?? '{\n  "servers": {}\n}\n';
    const before = readConfigText(text, file, { invalidEntries: 'collect' });
    const existingNames = new Set(entryNames(before));
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
        if (options.existing === 'refuse') {
          throw new SwitchboardError(
            'INVALID_ARGUMENT',
            `"${name}" is already in ${file}; nothing was written. Choose another name, or replace the entry.`,
            { details: { server: name, file, reason: 'exists' } },
          );
        }
        updated.push(name);
      } else {
        added.push(name);
      }
      text = applyEdits(text, modify(text, ['servers', name], fields, { formattingOptions: formatting }));
      existingNames.add(name);
    }
    if (added.length + updated.length === 0) return { added, updated, skipped };
    checkEdit(before, text, file, [...added, ...updated]);
    await writeFileAtomic(file, text);
    return { added, updated, skipped };
  });
}

/** Every entry name of a file, valid or not. */
export function entryNames(config: ConfigFile): string[] {
  return [...config.servers.map((s) => s.name), ...(config.invalid ?? []).map((e) => e.name)];
}

/**
 * Checks the edited text before it is written: it parses, the entries written (`written`)
 * are valid, and no entry that was valid `before` has become invalid. CONFIG_WRITE_FAILED
 * naming what would break otherwise.
 */
export function checkEdit(before: ConfigFile, text: string, file: string, written: readonly string[]): void {
  let after: ConfigFile;
  try {
    after = readConfigText(text, file, { invalidEntries: 'collect' });
  } catch (error) {
    throw editFailed(file, error);
  }
  const wasInvalid = new Set((before.invalid ?? []).map((e) => e.name));
  const broken = (after.invalid ?? []).find((e) => written.includes(e.name) || !wasInvalid.has(e.name));
  if (broken) throw editFailed(file, broken.error);
}

function editFailed(file: string, cause: unknown): SwitchboardError {
  const why = cause instanceof Error ? ` (${cause.message})` : '';
  return new SwitchboardError(
    'CONFIG_WRITE_FAILED',
    `Editing ${file} produced an invalid file${why}; nothing was written.`,
    { cause, details: { file } },
  );
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
