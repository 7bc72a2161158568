import { basename, dirname, join } from 'node:path';
import { withFileLock } from '../core/files/file-lock.js';

/**
 * The lock every edit of one of our config files holds for its read-modify-write, so that two
 * `switchboard add` (or `remove`, `enable`, `import`…) running at once both land instead of
 * the second writing over the first with what it read before. It is the file lock the
 * credential store uses (`core/files/file-lock.ts`): a lock file created exclusively, holding
 * the holder's pid, taken over when its holder is dead or after a minute.
 */

/** `.<name>.lock` beside the config file: hidden, and gone again once the edit is done. */
export function configLockFile(file: string): string {
  return join(dirname(file), `.${basename(file)}.lock`);
}

/** Runs `fn` holding the lock of config file `file`; CONFIG_WRITE_FAILED after 30 s of waiting. */
export function withConfigLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  return withFileLock(configLockFile(file), fn, {
    label: 'config file lock',
    busyHint: 'Another switchboard command is probably editing the same file; retry.',
    errorCode: 'CONFIG_WRITE_FAILED',
  });
}
