import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeError, SwitchboardError } from '../core/errors.js';

/**
 * Replaces a file's content atomically: the text goes to a temporary file in the same
 * directory, which is then renamed over the target (rename is atomic within one file system,
 * POSIX rename(2)). A failure leaves the old file as it was and removes the temporary one.
 * An existing file keeps its permission bits (a config may hold tokens).
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const mode = await stat(file).then(
      (s) => s.mode & 0o777,
      () => undefined,
    );
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx', flush: true });
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new SwitchboardError(
      'CONFIG_WRITE_FAILED',
      `Could not write ${file}: ${describeError(error)}. The file was left unchanged; check that its directory is writable.`,
      { cause: error, details: { file } },
    );
  }
}
