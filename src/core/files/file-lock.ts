/**
 * A lock shared by the processes of one machine: a lock file created with `O_EXCL`, so exactly
 * one creator wins, holding `{pid, hostname, acquiredAt}` so that waiters can tell a live
 * holder from a dead one. Node has no `flock`, and breaking a stale lock file cannot be made
 * perfectly race-free without one; the takeover below is serialised by a second `O_EXCL`
 * file and checked after a rename, which leaves a race only if a process dies inside that
 * few-millisecond takeover and two others then break it at the same instant.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { describeError, SwitchboardError, type SwitchboardErrorCode } from '../errors.js';
import { KeyedQueue, pollWithBackoff } from './lock-waiting.js';
import { isProcessAlive } from './process-alive.js';

/** Options of `withFileLock`. */
export interface FileLockOptions {
  /** How long to wait for the lock before failing, in ms (default 30 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its holder looks alive, in ms (default 60 s). */
  staleMs?: number;
  /** What the lock guards, for its errors, e.g. "credentials lock" (default "lock"). */
  label?: string;
  /** Who probably holds the lock and what to do, for the timeout error (default: retry). */
  busyHint?: string;
  /** The code of the lock's errors (default `STORAGE_FAILED`). */
  errorCode?: SwitchboardErrorCode;
}

/** How a lock's errors read: its label, the hint when it is busy, their code. */
interface LockWords {
  readonly label: string;
  readonly busyHint: string;
  readonly code: SwitchboardErrorCode;
}

/** What a lock file holds. `nonce` tells this acquisition from a later one by the same pid. */
interface LockContent {
  readonly pid: number;
  readonly hostname: string;
  readonly acquiredAt: number;
  readonly nonce: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_STALE_MS = 60_000;
/** The takeover guard is held for a few file operations; older than this, its holder died. */
const GUARD_STALE_MS = 10_000;

/** Lock files of this process, by path: the in-process half of every file lock. */
const processQueue = new KeyedQueue();
/** The nonces of the lock files this process holds right now. */
const heldHere = new Set<string>();

/**
 * Runs `fn` holding the lock file `lockFile` (its folder is created owner-only if missing) and
 * removes the lock afterwards, whether `fn` returns or throws. Waits at most `timeoutMs`,
 * polling with a growing backoff, then throws `STORAGE_FAILED` naming the lock, its holder and
 * the fix. A lock whose holder is a dead process on this host, or older than `staleMs`, is
 * taken over.
 */
export async function withFileLock<T>(
  lockFile: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + timeoutMs;
  const words: LockWords = {
    label: options.label ?? 'lock',
    busyHint: options.busyHint ?? 'Another process is probably using it; retry.',
    code: options.errorCode ?? 'STORAGE_FAILED',
  };
  const onTimeout = () => timeoutError(lockFile, timeoutMs, 'another caller in this process holds it', words);
  // Queued before anything is awaited: callers of this process get the lock in call order.
  return processQueue.run(
    lockFile,
    async () => {
      try {
        await mkdir(dirname(lockFile), { recursive: true, mode: 0o700 });
      } catch (error) {
        throw lockError(lockFile, error, words);
      }
      const nonce = await acquire(lockFile, { deadline, timeoutMs, staleMs, words });
      try {
        return await fn();
      } finally {
        await releaseLock(lockFile, nonce);
      }
    },
    { deadline, onTimeout },
  );
}

/** How one acquisition waits: until when, what counts as stale, how its errors read. */
interface Acquisition {
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly staleMs: number;
  readonly words: LockWords;
}

/** Creates the lock file, waiting and taking over stale locks until `deadline`; returns its nonce. */
async function acquire(lockFile: string, how: Acquisition): Promise<string> {
  const { deadline, timeoutMs, staleMs, words } = how;
  const nonce = randomBytes(8).toString('hex');
  let seen: Seen | undefined;
  const attempt = async (): Promise<string | undefined> => {
    // A lock just released or just taken over is tried again at once, a few times.
    for (let round = 0; round < 3; round++) {
      const content: LockContent = { pid: process.pid, hostname: hostname(), acquiredAt: Date.now(), nonce };
      if (await tryCreate(lockFile, content, words)) {
        heldHere.add(nonce);
        return nonce;
      }
      seen = await inspect(lockFile, words);
      if (seen && !(isStale(seen, staleMs) && (await takeOver(lockFile, seen.raw, how)))) return undefined;
    }
    return undefined;
  };
  return pollWithBackoff(deadline, attempt, () =>
    timeoutError(lockFile, timeoutMs, holderText(seen?.content), words),
  );
}

/** Creates `file` exclusively with `content`; `false` when it exists already. */
async function tryCreate(
  file: string,
  content: LockContent | { guard: string; at: number },
  words: LockWords,
): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw lockError(file, error, words);
  }
  try {
    await handle.writeFile(JSON.stringify(content), 'utf8');
  } finally {
    await handle.close();
  }
  return true;
}

/** A lock file as found: its raw text, its content when it parses, and its age. */
interface Seen {
  readonly raw: string;
  readonly content: LockContent | undefined;
  readonly mtimeMs: number;
}

/** Reads the lock file; `undefined` when it vanished meanwhile (released: try again). */
async function inspect(file: string, words: LockWords): Promise<Seen | undefined> {
  try {
    const [raw, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    return { raw, content: parseLock(raw), mtimeMs: info.mtimeMs };
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw lockError(file, error, words);
  }
}

function parseLock(raw: string): LockContent | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockContent> | null;
    if (
      typeof value?.pid === 'number' &&
      typeof value.hostname === 'string' &&
      typeof value.acquiredAt === 'number' &&
      typeof value.nonce === 'string'
    )
      return value as LockContent;
  } catch {
    // Empty (its creator is between open and write, or died there) or foreign: judged by age.
  }
  return undefined;
}

/**
 * Whether a lock may be taken over: its holder is gone, or it is too old to trust. A lock with
 * this process's pid that it does not hold now is one it failed to remove: stale too.
 */
function isStale(seen: Seen, staleMs: number): boolean {
  const content = seen.content;
  if (!content) return Date.now() - seen.mtimeMs > staleMs;
  if (Date.now() - content.acquiredAt > staleMs) return true;
  if (content.hostname !== hostname()) return false;
  if (content.pid === process.pid) return !heldHere.has(content.nonce);
  return !isProcessAlive(content.pid);
}

/**
 * Removes the stale lock whose text was `staleRaw`, under the takeover guard, so that two
 * waiters cannot both judge the same lock stale and the second remove the first's fresh lock.
 * Whoever removed it then competes for the lock like everyone else. `false` when another
 * waiter holds the guard (wait, then look again).
 */
async function takeOver(lockFile: string, staleRaw: string, how: Acquisition): Promise<boolean> {
  const { staleMs, words } = how;
  const guard = `${lockFile}.takeover`;
  if (!(await tryCreate(guard, { guard: randomBytes(8).toString('hex'), at: Date.now() }, words))) {
    // A guard left by a process that died while holding it is removed, for the next round.
    const seen = await inspect(guard, words);
    if (seen && Date.now() - seen.mtimeMs > Math.min(GUARD_STALE_MS, staleMs))
      await removeIfUnchanged(guard, seen.raw, words);
    return false;
  }
  try {
    const seen = await inspect(lockFile, words);
    if (seen?.raw === staleRaw) await removeIfUnchanged(lockFile, staleRaw, words);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/**
 * Removes `file` if it still holds `raw`: renamed aside first (only one renamer wins), checked,
 * then deleted; a file that turns out to have changed meanwhile is linked back in place.
 */
async function removeIfUnchanged(file: string, raw: string, words: LockWords): Promise<void> {
  const aside = `${file}.${randomBytes(6).toString('hex')}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw lockError(file, error, words);
  }
  try {
    if ((await readFile(aside, 'utf8')) !== raw) await link(aside, file).catch(() => undefined);
  } finally {
    await unlink(aside).catch(() => undefined);
  }
}

/**
 * Removes the lock if it is still ours. Failing to remove it is not an error of `fn`: the lock
 * carries our pid and is taken over once we exit, or at once by the next caller in this process.
 */
async function releaseLock(lockFile: string, nonce: string): Promise<void> {
  try {
    const seen = await inspect(lockFile, RELEASE_WORDS);
    if (seen?.content?.nonce === nonce) await unlink(lockFile);
  } catch {
    // See above: the stale-lock rules clean up after us.
  } finally {
    heldHere.delete(nonce);
  }
}

function holderText(content: LockContent | undefined): string {
  if (!content) return 'its holder is still writing it, or left it unreadable';
  const since = new Date(content.acquiredAt).toISOString();
  return `it is held by pid ${content.pid} on ${content.hostname} since ${since}`;
}

/** Releasing never reports an error (see `releaseLock`): its words are never read. */
const RELEASE_WORDS: LockWords = { label: 'lock', busyHint: '', code: 'STORAGE_FAILED' };

function timeoutError(lockFile: string, timeoutMs: number, why: string, words: LockWords): SwitchboardError {
  return new SwitchboardError(
    words.code,
    `Timed out after ${timeoutMs} ms waiting for the ${words.label} ${lockFile}: ${why}. ${words.busyHint} ` +
      `If no such process is running, delete ${lockFile}.`,
    { details: { lockFile, reason: 'lock-timeout' } },
  );
}

function lockError(file: string, error: unknown, words: LockWords): SwitchboardError {
  return new SwitchboardError(
    words.code,
    `Cannot use the ${words.label} ${file}: ${describeError(error)}. Check that its directory ` +
      'exists and that this user may write to it.',
    { cause: error, details: { lockFile: file } },
  );
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
