import { open, stat } from 'node:fs/promises';
import { CONFIG_MAX_BYTES, lineAndColumn } from '../core/config/config-text.js';
import { describeError, SwitchboardError } from '../core/errors.js';

/**
 * Reading a config file's text, bounded: only a regular file (a FIFO would block the read
 * forever, a device would never end), at most `maxBytes` (checked before reading, and again
 * while reading, for a file that grows or lies about its size), and only valid UTF-8 (a
 * replacement character silently standing in for a broken byte could change a name or a
 * path). Every refusal names the file.
 */

/** Options of `readTextIfExists`. */
export interface ReadTextOptions {
  /** The largest file accepted, in bytes. Default: `CONFIG_MAX_BYTES` (4 MiB). */
  readonly maxBytes?: number;
}

/**
 * Reads a file's text, or undefined when it does not exist. A file that is not a regular file
 * or cannot be read is CONFIG_READ_FAILED; one that is too large or is not UTF-8 is
 * CONFIG_INVALID.
 */
export async function readTextIfExists(
  file: string,
  options: ReadTextOptions = {},
): Promise<string | undefined> {
  const maxBytes = options.maxBytes ?? CONFIG_MAX_BYTES;
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      throw new SwitchboardError(
        'CONFIG_READ_FAILED',
        `Could not read ${file}: it is ${info.isDirectory() ? 'a directory' : 'not a regular file'}. Put the config file there, or point to it.`,
        { details: { file } },
      );
    }
    size = info.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw readFailed(file, error);
  }
  if (size > maxBytes) throw tooLarge(file, size, maxBytes);
  let bytes: Buffer;
  try {
    bytes = await readAtMost(file, maxBytes + 1);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw readFailed(file, error);
  }
  if (bytes.length > maxBytes) throw tooLarge(file, bytes.length, maxBytes);
  return decodeUtf8(bytes, file);
}

/**
 * The bytes as UTF-8 text; CONFIG_INVALID naming where the first byte that is not UTF-8 is
 * (a file saved in another encoding, or damaged).
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    const lenient = new TextDecoder('utf-8').decode(bytes);
    const { line, column } = lineAndColumn(lenient, Math.max(0, lenient.indexOf('\uFFFD')));
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `${file}:${line}:${column}: the file is not UTF-8 text. Save it as UTF-8 (its other bytes may be damaged).`,
      { cause: error, details: { file, line, column } },
    );
  }
}

/** Up to `limit` bytes of `file`, read in chunks. */
async function readAtMost(file: string, limit: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, limit - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

function readFailed(file: string, error: unknown): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  return new SwitchboardError(
    'CONFIG_READ_FAILED',
    `Could not read ${file}: ${describeError(error)}. Check that it is a readable file.`,
    { cause: error, details: { file } },
  );
}

function tooLarge(file: string, size: number, maxBytes: number): SwitchboardError {
  return new SwitchboardError(
    'CONFIG_INVALID',
    `${file}: the file has ${size} bytes, more than the ${maxBytes} a config file may have. ` +
      'Check that it is the right file; a generated config may hold what it does not need.',
    { details: { file, size, maxBytes } },
  );
}
