import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, type FileHandle, lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { MediaPart } from '../../client/results.js';
import { describeError, SwitchboardError } from '../../core/errors.js';
import { parseMediaName } from './media-name.js';
import { extensionOf, mimeTypeOf, normalizeMimeType } from './mime.js';

/**
 * Media from tool results, kept as files `<dir>/<id>.<ext>` and served by URL, so a result
 * can reference an image or a recording instead of inlining megabytes of base64. The id is
 * random and unguessable (the URL is the capability); files are private to the user
 * (0600 in a 0700 directory) and written atomically (temp file, then rename), so a reader
 * never sees half a file. `prune()` enforces retention by age and by total size.
 */
export interface MediaStoreOptions {
  readonly dir: string;
  /** Public URL of the directory, e.g. `http://127.0.0.1:4100/media` (no trailing slash needed). */
  readonly baseUrl: string;
  /** Total bytes kept; the oldest files go first past it. Default 512 MiB. */
  readonly maxBytes?: number;
  /** Files older than this are removed. Default 7 days. */
  readonly maxAgeMs?: number;
}

/** A saved media part: where it is and what it is. */
export interface MediaRef {
  readonly id: string;
  readonly fileName: string;
  readonly url: string;
  /** The normalized type the tool declared (parameters dropped, aliases resolved). */
  readonly mimeType: string;
  readonly bytes: number;
}

/** An opened media file. Read or cancel `stream`: either releases the file handle. */
export interface MediaFile {
  readonly fileName: string;
  /** The type the file is served as, from its extension. */
  readonly mimeType: string;
  readonly bytes: number;
  readonly modifiedAt: Date;
  readonly stream: ReadableStream<Uint8Array>;
}

/**
 * Outcome of `open()`. A refused name is an expected outcome of untrusted input (a 400),
 * not an exceptional one, so it is a value here; thrown errors mean the disk failed.
 */
export type MediaOpenResult =
  | { readonly status: 'found'; readonly file: MediaFile }
  | { readonly status: 'not_found' }
  | { readonly status: 'refused'; readonly reason: string };

export interface PruneReport {
  /** File names removed, oldest first. */
  readonly removed: readonly string[];
  readonly keptFiles: number;
  readonly keptBytes: number;
}

/** What `renderResultWithMedia` needs from a store. */
export interface MediaSaver {
  save(part: Pick<MediaPart, 'mimeType' | 'data'>): Promise<MediaRef>;
}

const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
const DEFAULT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Temp files start with a dot, so they can never match a media name. */
const TEMP_PREFIX = '.tmp-';

export class MediaStore implements MediaSaver {
  readonly dir: string;
  readonly baseUrl: string;
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  private ready: Promise<void> | undefined;

  constructor(options: MediaStoreOptions) {
    this.dir = options.dir;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    if (!URL.canParse(this.baseUrl)) {
      throw invalid(
        `The media base URL "${options.baseUrl}" is not a URL; pass e.g. http://127.0.0.1:4100/media.`,
      );
    }
    for (const [field, value] of [
      ['maxBytes', this.maxBytes],
      ['maxAgeMs', this.maxAgeMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) {
        throw invalid(`The media store's ${field} must be a non-negative number, got ${value}.`);
      }
    }
  }

  /** Writes a media part to a new file and returns its reference. */
  async save(part: Pick<MediaPart, 'mimeType' | 'data'>): Promise<MediaRef> {
    await this.ensureDir();
    const id = randomBytes(16).toString('base64url');
    const mimeType = normalizeMimeType(part.mimeType);
    const fileName = `${id}.${extensionOf(mimeType)}`;
    const temp = join(this.dir, `${TEMP_PREFIX}${id}`);
    try {
      // `wx`: never follow or reuse an existing path; the mode is set at creation.
      await writeFile(temp, part.data, { mode: 0o600, flag: 'wx' });
      await rename(temp, join(this.dir, fileName));
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw storageFailed(`Could not save media in ${this.dir}`, error);
    }
    return { id, fileName, url: `${this.baseUrl}/${fileName}`, mimeType, bytes: part.data.byteLength };
  }

  /** Opens a saved file by its name `<id>.<ext>`; any other name is refused without touching the disk. */
  async open(name: string): Promise<MediaOpenResult> {
    const check = parseMediaName(name);
    if (!check.ok) return { status: 'refused', reason: check.reason };
    let handle: FileHandle;
    try {
      // O_NOFOLLOW: a symlink planted in the directory is not followed out of it.
      handle = await open(join(this.dir, check.name.fileName), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if (hasCode(error, 'ENOENT', 'ELOOP', 'ENOTDIR')) return { status: 'not_found' };
      throw storageFailed(`Could not open media "${name}"`, error);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return { status: 'not_found' };
      }
      const stream = Readable.toWeb(handle.createReadStream()) as ReadableStream<Uint8Array>;
      const file: MediaFile = {
        fileName: check.name.fileName,
        mimeType: mimeTypeOf(check.name.extension),
        bytes: stat.size,
        modifiedAt: stat.mtime,
        stream,
      };
      return { status: 'found', file };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw storageFailed(`Could not read media "${name}"`, error);
    }
  }

  /**
   * Removes files older than `maxAgeMs`, then the oldest files until the rest fit in
   * `maxBytes`. Age is the file's modification time, which is its save time. Abandoned temp
   * files past the age limit go too; other files in the directory are left alone.
   */
  async prune(now: number = Date.now()): Promise<PruneReport> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return { removed: [], keptFiles: 0, keptBytes: 0 };
      throw storageFailed(`Could not list media in ${this.dir}`, error);
    }
    const cutoff = now - this.maxAgeMs;
    const entries = await Promise.all(
      names.map(async (name) => {
        const temp = name.startsWith(TEMP_PREFIX);
        if (!temp && !parseMediaName(name).ok) return undefined;
        const stat = await lstat(join(this.dir, name)).catch((error: unknown) => {
          if (hasCode(error, 'ENOENT')) return undefined;
          throw storageFailed(`Could not inspect media "${name}"`, error);
        });
        if (!stat?.isFile()) return undefined;
        return { name, temp, bytes: stat.size, mtimeMs: stat.mtimeMs };
      }),
    );
    const present = entries
      .filter((e) => e !== undefined)
      .sort((a, b) => a.mtimeMs - b.mtimeMs || a.name.localeCompare(b.name));
    const removed: string[] = [];
    const kept: { name: string; bytes: number }[] = [];
    for (const entry of present) {
      if (entry.mtimeMs < cutoff) {
        await this.remove(entry.name);
        if (!entry.temp) removed.push(entry.name);
      } else if (!entry.temp) {
        kept.push(entry);
      }
    }
    let keptBytes = kept.reduce((sum, e) => sum + e.bytes, 0);
    let first = 0;
    while (keptBytes > this.maxBytes && first < kept.length) {
      const oldest = kept[first++]!;
      await this.remove(oldest.name);
      removed.push(oldest.name);
      keptBytes -= oldest.bytes;
    }
    return { removed, keptFiles: kept.length - first, keptBytes };
  }

  private async remove(name: string): Promise<void> {
    try {
      await rm(join(this.dir, name));
    } catch (error) {
      if (!hasCode(error, 'ENOENT')) throw storageFailed(`Could not remove media "${name}"`, error);
    }
  }

  /** Creates the directory once (0700 even if it already existed with a wider mode). */
  private ensureDir(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await chmod(this.dir, 0o700);
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw storageFailed(`Could not create the media directory ${this.dir}`, error);
    });
    return this.ready;
  }
}

function hasCode(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

function invalid(message: string): SwitchboardError {
  return new SwitchboardError('CONFIG_INVALID', message);
}

function storageFailed(what: string, cause: unknown): SwitchboardError {
  return new SwitchboardError(
    'STORAGE_FAILED',
    `${what}: ${describeError(cause)}. Check that the directory exists, is writable and the disk has room.`,
    { cause },
  );
}
