import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeError, SwitchboardError } from '../core/errors.js';
import { isProcessAlive } from '../core/files/process-alive.js';

/**
 * Replaces a file's content atomically: the text goes to a temporary file in the same
 * directory, `.<name>.<pid>.<random>.tmp`, which is then renamed over the target (rename is
 * atomic within one file system, POSIX rename(2)). A failure leaves the old file as it was and
 * removes the temporary one. An existing file keeps its permission bits (a config may hold
 * tokens), unless `options.mode` sets one. A writer killed mid-write cannot remove its temporary file, so every write first
 * removes those of writers that are gone (their pid is not running, or the file is older than
 * ten minutes, for a pid reused since or a writer on another machine).
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: { readonly mode?: number } = {},
): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  writing.add(temp);
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleTemps(file);
    // `options.mode` is the file's mode whatever it was (a secrets file is owner-only from
    // its first byte: the temporary file is created so).
    const mode =
      options.mode ??
      (await stat(file).then(
        (s) => s.mode & 0o777,
        () => undefined,
      ));
    await writeFile(temp, text, {
      encoding: 'utf8',
      flag: 'wx',
      flush: true,
      ...(options.mode !== undefined && { mode: options.mode }),
    });
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new SwitchboardError(
      'CONFIG_WRITE_FAILED',
      `Could not write ${file}: ${describeError(error)}. The file was left unchanged; check that its directory is writable.`,
      { cause: error, details: { file } },
    );
  } finally {
    writing.delete(temp);
  }
}

/** The temporary files this process is writing now: never stale, whatever their age. */
const writing = new Set<string>();

/** A temporary file older than this is stale even if a process of its pid runs. */
const STALE_TEMP_MS = 10 * 60_000;

/**
 * Removes the temporary files of `file` left by writers that are gone. Best effort: a file
 * that cannot be listed or removed now is tried again on the next write.
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const match = /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length));
    if (!match) continue;
    const path = join(dir, name);
    if (writing.has(path)) continue;
    const pid = Number(match[1]);
    const ageMs = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => undefined,
    );
    if (ageMs === undefined) continue;
    const gone = pid === process.pid || !isProcessAlive(pid) || ageMs > STALE_TEMP_MS;
    if (
      gone &&
      (await unlink(path).then(
        () => true,
        () => false,
      ))
    )
      removed.push(path);
  }
  return removed;
}
