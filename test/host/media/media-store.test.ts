import { lstat, mkdir, mkdtemp, readdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSwitchboardError } from '../../../src/core/errors.js';
import { parseMediaName } from '../../../src/host/media/media-name.js';
import { type MediaOpenResult, MediaStore } from '../../../src/host/media/media-store.js';

/** The media store on real temp directories. */
let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-media-'));
  dir = join(root, 'media');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const BASE = 'http://127.0.0.1:4100/media';
const bytes = (n: number, fill = 7) => new Uint8Array(n).fill(fill);

async function readAll(result: MediaOpenResult): Promise<Uint8Array> {
  if (result.status !== 'found') throw new Error(`expected found, got ${JSON.stringify(result)}`);
  return new Uint8Array(await new Response(result.file.stream).arrayBuffer());
}

describe('MediaStore.save and open', () => {
  it('writes a private file atomically and reads it back', async () => {
    const store = new MediaStore({ dir, baseUrl: `${BASE}/` });
    const data = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const ref = await store.save({ mimeType: 'image/png', data });
    expect(ref.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ref).toEqual({
      id: ref.id,
      fileName: `${ref.id}.png`,
      url: `${BASE}/${ref.id}.png`,
      mimeType: 'image/png',
      bytes: 7,
    });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, ref.fileName))).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual([ref.fileName]);

    const opened = await store.open(ref.fileName);
    expect(opened.status === 'found' && opened.file.mimeType).toBe('image/png');
    expect(opened.status === 'found' && opened.file.bytes).toBe(7);
    expect(await readAll(opened)).toEqual(data);
  });

  it('gives every save a new id and maps types to extensions', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE });
    const a = await store.save({ mimeType: 'audio/mpeg', data: bytes(3) });
    const b = await store.save({ mimeType: 'application/x-unknown', data: bytes(3) });
    const c = await store.save({ mimeType: 'IMAGE/JPG; q=1', data: bytes(3) });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect([a.fileName, b.fileName, c.fileName].map((n) => n.split('.')[1])).toEqual(['mp3', 'bin', 'jpg']);
    expect(c.mimeType).toBe('image/jpeg');
    const opened = await store.open(b.fileName);
    expect(opened.status === 'found' && opened.file.mimeType).toBe('application/octet-stream');
    await readAll(opened);
  });

  it('tightens an existing directory to 0700', async () => {
    await mkdir(dir, { mode: 0o755 });
    await new MediaStore({ dir, baseUrl: BASE }).save({ mimeType: 'text/plain', data: bytes(1) });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('reports a well-formed name that is not there as not_found', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE });
    expect(await store.open('AAAAAAAAAAAAAAAAAAAAAA.png')).toEqual({ status: 'not_found' });
  });

  it('does not follow a symlink or open a directory, even with a valid name', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE });
    await store.save({ mimeType: 'text/plain', data: bytes(1) });
    await writeFile(join(root, 'secret.txt'), 'secret');
    await symlink(join(root, 'secret.txt'), join(dir, 'BBBBBBBBBBBBBBBBBBBBBB.txt'));
    await mkdir(join(dir, 'CCCCCCCCCCCCCCCCCCCCCC.png'));
    expect(await store.open('BBBBBBBBBBBBBBBBBBBBBB.txt')).toEqual({ status: 'not_found' });
    expect(await store.open('CCCCCCCCCCCCCCCCCCCCCC.png')).toEqual({ status: 'not_found' });
  });

  it('rejects a base URL that is not a URL and negative limits', () => {
    expect(() => new MediaStore({ dir, baseUrl: 'not a url' })).toThrow(/base URL/);
    try {
      new MediaStore({ dir, baseUrl: BASE, maxBytes: -1 });
      expect.unreachable();
    } catch (error) {
      expect(isSwitchboardError(error, 'CONFIG_INVALID')).toBe(true);
    }
  });

  it('fails a save with STORAGE_FAILED when the directory cannot be created', async () => {
    await writeFile(join(root, 'file'), 'x');
    const store = new MediaStore({ dir: join(root, 'file', 'media'), baseUrl: BASE });
    await expect(store.save({ mimeType: 'image/png', data: bytes(1) })).rejects.toSatisfy((e) =>
      isSwitchboardError(e, 'STORAGE_FAILED'),
    );
  });
});

describe('media names', () => {
  const id = 'AbCdEfGhIjKlMnOpQrSt_-';

  it.each([
    '../x.png',
    '..%2Fx.png',
    '%2e%2e%2fx.png',
    'a/b.png',
    `a/${id}.png`,
    '/etc/passwd',
    `/${id}.png`,
    'x.png/..',
    `${id}.png/..`,
    '..',
    '.',
    `${id}..png`,
    `${id}.png.png`,
    `.${id}.png`,
    `${id}.`,
    id,
    '',
    `${'a'.repeat(10_000)}.png`,
    `${id}.PNG`,
    `${id}.exe`,
    `${id}%2Epng`,
    `${id}.png\u0000`,
    `..\\${id}.png`,
    `${id.slice(1)}.png`,
    `${id}A.png`,
    `${id}.png `,
  ])('refuses %j without touching the disk', async (name) => {
    expect(parseMediaName(name).ok).toBe(false);
    const store = new MediaStore({ dir: join(root, 'never-created'), baseUrl: BASE });
    const result = await store.open(name);
    expect(result.status).toBe('refused');
    await expect(lstat(join(root, 'never-created'))).rejects.toThrow();
  });

  it('accepts exactly <22-char id>.<known ext>', () => {
    expect(parseMediaName(`${id}.png`)).toEqual({
      ok: true,
      name: { id, extension: 'png', fileName: `${id}.png` },
    });
  });

  it('never opens a file outside the directory', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE });
    await store.save({ mimeType: 'image/png', data: bytes(1) });
    await writeFile(join(root, 'secret.png'), 'secret');
    expect((await store.open('../secret.png')).status).toBe('refused');
  });
});

describe('MediaStore.prune', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const NOW = Date.UTC(2026, 0, 10);

  async function saveAt(store: MediaStore, size: number, at: number): Promise<string> {
    const ref = await store.save({ mimeType: 'image/png', data: bytes(size) });
    await utimes(join(dir, ref.fileName), at / 1000, at / 1000);
    return ref.fileName;
  }

  it('removes files older than maxAgeMs and keeps the rest', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE, maxAgeMs: 7 * DAY });
    const old = await saveAt(store, 10, NOW - 8 * DAY);
    const fresh = await saveAt(store, 10, NOW - 6 * DAY);
    expect(await store.prune(NOW)).toEqual({ removed: [old], keptFiles: 1, keptBytes: 10 });
    expect(await readdir(dir)).toEqual([fresh]);
  });

  it('removes the oldest files first until the total fits in maxBytes', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE, maxBytes: 250 });
    const oldest = await saveAt(store, 100, NOW - 3000);
    const middle = await saveAt(store, 100, NOW - 2000);
    const newest = await saveAt(store, 100, NOW - 1000);
    expect(await store.prune(NOW)).toEqual({ removed: [oldest], keptFiles: 2, keptBytes: 200 });
    expect((await readdir(dir)).sort()).toEqual([middle, newest].sort());

    const tight = new MediaStore({ dir, baseUrl: BASE, maxBytes: 99 });
    expect(await tight.prune(NOW)).toEqual({ removed: [middle, newest], keptFiles: 0, keptBytes: 0 });
  });

  it('applies age before size and reports removals oldest first', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE, maxBytes: 150, maxAgeMs: DAY });
    const expired = await saveAt(store, 10, NOW - 2 * DAY);
    const a = await saveAt(store, 100, NOW - 2000);
    const b = await saveAt(store, 100, NOW - 1000);
    expect(await store.prune(NOW)).toEqual({ removed: [expired, a], keptFiles: 1, keptBytes: 100 });
    expect(await readdir(dir)).toEqual([b]);
  });

  it('removes stale temp files but leaves files it did not write', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE, maxAgeMs: DAY, maxBytes: 0 });
    await mkdir(dir, { recursive: true });
    const stale = join(dir, '.tmp-abandoned');
    const inFlight = join(dir, '.tmp-writing');
    await writeFile(stale, 'x');
    await writeFile(inFlight, 'x');
    await utimes(stale, (NOW - 2 * DAY) / 1000, (NOW - 2 * DAY) / 1000);
    await utimes(inFlight, NOW / 1000, NOW / 1000);
    await writeFile(join(dir, 'README.txt'), 'not ours');
    expect(await store.prune(NOW)).toEqual({ removed: [], keptFiles: 0, keptBytes: 0 });
    expect((await readdir(dir)).sort()).toEqual(['.tmp-writing', 'README.txt']);
  });

  it('is a no-op when the directory does not exist yet', async () => {
    const store = new MediaStore({ dir, baseUrl: BASE });
    expect(await store.prune()).toEqual({ removed: [], keptFiles: 0, keptBytes: 0 });
  });
});
