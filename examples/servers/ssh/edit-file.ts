/**
 * `edit_file` and `replace_lines` on a remote file: resolve the path (an edit of a symlink
 * edits its target, the link stays), read the file (refusing a binary one or one above
 * `SSH_MCP_FILE_MAX`), check the `expected_version` the caller read, apply the pure edit,
 * write it back (remote-write.ts: atomic, mode and owner kept, refused if the file changed
 * meanwhile), and describe the change as numbered diff hunks. Edits of one file by this
 * server run one after another, so two at once both land.
 */
import { formatHunks, lineChanges } from './diff-hunks.js';
import type { EditOutcome } from './edit-text.js';
import { SshError } from './errors.js';
import { binaryFile, regularFile, remotePath } from './read-file.js';
import { type RemoteFs, tooLarge } from './remote-fs.js';
import { createFile, type KeyedLock, rewriteFile } from './remote-write.js';
import type { SshSettings } from './settings.js';
import { looksBinary, versionOf } from './text-lines.js';

/** What an edit did, for the tool's answer. */
export interface EditReport {
  readonly text: string;
  readonly structured: Record<string, unknown>;
}

/** The edit to make on the file's bytes, and what to call it in the answer. */
export interface EditPlan {
  readonly path: string;
  readonly expectedVersion: string | undefined;
  readonly apply: (data: Buffer) => EditOutcome;
  /** For edit_file only: an empty old_string creates a file that does not exist. */
  readonly createWith?: Buffer;
}

function outcomeError(path: string, outcome: Exclude<EditOutcome, { kind: 'edited' }>): SshError {
  if (outcome.kind === 'no-match')
    return new SshError('NO_MATCH', `old_string is not in ${path}. ${outcome.hint}`);
  if (outcome.kind === 'ambiguous')
    return new SshError(
      'AMBIGUOUS_MATCH',
      `old_string occurs ${outcome.lines.length} times in ${path} (at lines ${outcome.lines.slice(0, 20).join(', ')}${outcome.lines.length > 20 ? ', …' : ''}). Include more of the surrounding lines so it occurs once, or pass replace_all=true.`,
    );
  return new SshError('INVALID_ARGUMENT', outcome.message);
}

/** Runs the plan on the file; see the module comment. */
export async function editRemote(
  fs: RemoteFs,
  settings: SshSettings,
  lock: { readonly locks: KeyedLock; readonly host: string },
  plan: EditPlan,
): Promise<EditReport> {
  const path = remotePath(plan.path);
  if (plan.createWith !== undefined && (await fs.lstatIfAny(path)) === undefined) {
    await createFile(fs, path, plan.createWith);
    const version = versionOf(plan.createWith);
    return {
      text: `Created ${plan.path} (${plan.createWith.length} bytes, mode 644). version ${version}`,
      structured: { path: plan.path, created: true, version },
    };
  }
  const real = await fs.realpath(path);
  return lock.locks.run(`${lock.host} ${real}`, async () => {
    const stats = await regularFile(fs, real);
    if (stats.size > settings.fileMaxBytes) throw tooLarge(plan.path, settings.fileMaxBytes);
    const data = await fs.readWhole(real, settings.fileMaxBytes);
    if (looksBinary(data)) throw binaryFile(plan.path, data.length);
    const before = versionOf(data);
    if (plan.expectedVersion !== undefined && plan.expectedVersion !== before)
      throw new SshError(
        'FILE_CHANGED',
        `${plan.path} is no longer the version you read (${plan.expectedVersion}; it is ${before} now). Read it again, then edit.`,
      );
    const outcome = plan.apply(data);
    if (outcome.kind !== 'edited') throw outcomeError(plan.path, outcome);
    if (outcome.data.length > settings.fileMaxBytes)
      throw tooLarge(`${plan.path} after the edit`, settings.fileMaxBytes);
    const way = await rewriteFile(fs, { path: real, data, stats }, outcome.data, {
      maxBytes: settings.fileMaxBytes,
    });
    const version = versionOf(outcome.data);
    const changed = lineChanges(data, outcome.data, outcome.changes);
    const where = real === path ? plan.path : `${plan.path} (${real})`;
    const count = outcome.changes.length;
    const head = `Edited ${where}: ${count} replacement${count === 1 ? '' : 's'}, written ${way}; version ${version}.`;
    return {
      text: [head, formatHunks(data, outcome.data, changed)].join('\n'),
      structured: {
        path: plan.path,
        resolved_path: real,
        replacements: count,
        written: way,
        previous_version: before,
        version,
        changed_lines: changed.map((c) => ({
          old: [c.oldFrom + 1, c.oldTo],
          new: [c.newFrom + 1, c.newTo],
        })),
      },
    };
  });
}
