import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeMedia, saveMedia } from '../../../src/cli/output/media-files.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-cli-media-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('saveMedia', () => {
  it('writes each part to its own private file under media/ and describes it', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const saved = await saveMedia(dataDir, [
      { type: 'image', mimeType: 'image/png', data: png },
      { type: 'blob', mimeType: 'application/x-unknown', data: new Uint8Array(2048), uri: 'kitchen://blob' },
    ]);
    expect(saved).toHaveLength(2);
    const [image, blob] = saved;
    expect(dirname(image!.path)).toBe(join(dataDir, 'media'));
    expect(image!.path).toMatch(/\.png$/);
    expect(new Uint8Array(await readFile(image!.path))).toEqual(png);
    expect((await stat(image!.path)).mode & 0o777).toBe(0o600);
    expect(blob).toMatchObject({
      type: 'blob',
      mimeType: 'application/x-unknown',
      bytes: 2048,
      uri: 'kitchen://blob',
    });
    expect(blob!.path).toMatch(/\.bin$/);
    expect(describeMedia(image!)).toBe(`[image/png, 4 B] saved to ${image!.path}`);
    expect(describeMedia(blob!)).toBe(`[application/x-unknown, 2.0 KiB] saved to ${blob!.path}`);
  });

  it('creates nothing when there is nothing to save', async () => {
    expect(await saveMedia(dataDir, [])).toEqual([]);
    await expect(stat(join(dataDir, 'media'))).rejects.toThrow();
  });
});
