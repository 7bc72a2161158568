import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { LineCollector } from './log-lines.js';

/**
 * Following a log file that the host appends to and rotates (renamed to `<file>.1` past its
 * size limit, one backup): the file's size is looked at on a fixed interval and what was
 * appended is read. A file is known by its inode and its first bytes together, because a
 * rotated file's inode number is soon reused by the new one.
 */

/** Which file was read, and how far. */
export interface FollowPosition {
  readonly ino: number;
  /** The file's first bytes (up to 64) when it was last looked at. */
  readonly head: Buffer;
  readonly offset: number;
}

/** How often a followed file is looked at. */
const FOLLOW_INTERVAL_MS = 250;
const HEAD_BYTES = 64;

interface Look {
  readonly ino: number;
  readonly size: number;
  readonly head: Buffer;
}

/** A whole file's text and the position at its end; undefined when it does not exist. */
export async function readWhole(
  file: string,
): Promise<{ text: string; position: FollowPosition } | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { ino } = await handle.stat();
    const bytes = await handle.readFile();
    return {
      text: bytes.toString('utf8'),
      position: { ino, head: Buffer.from(bytes.subarray(0, HEAD_BYTES)), offset: bytes.length },
    };
  } finally {
    await handle.close();
  }
}

async function look(file: string): Promise<Look | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { ino, size } = await handle.stat();
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return { ino, size, head: head.subarray(0, bytesRead) };
  } finally {
    await handle.close();
  }
}

function sameFile(position: FollowPosition, now: Look): boolean {
  return (
    now.ino === position.ino &&
    now.size >= position.offset &&
    now.head.subarray(0, position.head.length).equals(position.head)
  );
}

/** What `followLog` reports to, and when it stops. */
export interface FollowOptions {
  readonly print: (line: string) => void;
  readonly warn: (text: string) => void;
  readonly signal: AbortSignal;
}

/**
 * Prints each line appended to `file` after `from` (from the start of the file when it did not
 * exist then) until `signal` aborts. A line still being written waits for its newline.
 */
export async function followLog(
  file: string,
  from: FollowPosition | undefined,
  { print, warn, signal }: FollowOptions,
): Promise<void> {
  const lines = new LineCollector();
  // Bytes, not characters, are counted: a read may end inside a multi-byte character.
  const decoder = new StringDecoder('utf8');
  const emit = (bytes: Buffer) => {
    for (const l of lines.push(decoder.write(bytes))) print(l);
  };
  let position = from;
  let busy = false;
  const poll = async () => {
    if (busy) return;
    busy = true;
    try {
      const now = await look(file);
      if (!now) return;
      if (position && !sameFile(position, now)) {
        // Rotated: the old file is `.1` now, and what was added to it since the last look comes
        // first. Rotated twice since then, `.1` is a later file and the lines between are gone.
        const backup = await look(`${file}.1`);
        if (backup && sameFile(position, backup)) emit(await readRange(`${file}.1`, position.offset));
        else {
          warn('the log was rotated more than once between two looks; some lines were not shown.');
          if (backup) emit(await readRange(`${file}.1`, 0));
        }
        for (const l of [...lines.push(decoder.end()), ...lines.flush()]) print(l);
        position = undefined;
      }
      position ??= { ino: now.ino, head: now.head, offset: 0 };
      if (now.size > position.offset) {
        const bytes = await readRange(file, position.offset, now.size);
        position = { ino: now.ino, head: now.head, offset: position.offset + bytes.length };
        emit(bytes);
      }
    } finally {
      busy = false;
    }
  };
  if (signal.aborted) return;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => void poll().catch(() => undefined), FOLLOW_INTERVAL_MS);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The bytes of `file` from `start` to `end` (default: its end); none when it is gone. */
async function readRange(file: string, start: number, end?: number): Promise<Buffer> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return Buffer.alloc(0);
  try {
    const size = end ?? (await handle.stat()).size;
    if (size <= start) return Buffer.alloc(0);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
