import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeToolResult } from '../../../src/client/results.js';
import type { MediaRef, MediaSaver } from '../../../src/host/media/media-store.js';
import { MediaStore } from '../../../src/host/media/media-store.js';
import { formatBytes, markdownLink, renderResultWithMedia } from '../../../src/host/media/media-text.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-media-text-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const png = Buffer.alloc(12_595, 1);
const result = normalizeToolResult({
  content: [
    { type: 'text', text: 'Here is the chart.' },
    { type: 'image', mimeType: 'image/png', data: png.toString('base64') },
    { type: 'resource_link', uri: 'file:///tmp/report.pdf', name: 'report.pdf' },
  ],
});

/** Stands in for the store: deterministic ids, records what it saved. */
function fakeSaver(): MediaSaver & { saved: Uint8Array[] } {
  const saved: Uint8Array[] = [];
  return {
    saved,
    async save(part): Promise<MediaRef> {
      saved.push(part.data);
      const id = `id${saved.length}`;
      const fileName = `${id}.png`;
      return {
        id,
        fileName,
        url: `http://127.0.0.1:4100/media/${fileName}`,
        mimeType: part.mimeType,
        bytes: part.data.byteLength,
      };
    },
  };
}

describe('renderResultWithMedia', () => {
  it('keeps the text, references the saved image by URL, type and size, and links the resource', async () => {
    const saver = fakeSaver();
    const rendered = await renderResultWithMedia(result, saver);
    expect(rendered.text).toBe(
      [
        'Here is the chart.',
        '[image/png, 12.3 KiB](http://127.0.0.1:4100/media/id1.png)',
        '[report.pdf](file:///tmp/report.pdf)',
      ].join('\n'),
    );
    expect(rendered.media.map((m) => m.fileName)).toEqual(['id1.png']);
    expect(Buffer.from(saver.saved[0] ?? [])).toEqual(png);
  });

  it('writes the media to a real store where the URL points', async () => {
    const store = new MediaStore({ dir: join(root, 'media'), baseUrl: 'http://127.0.0.1:4100/media' });
    const rendered = await renderResultWithMedia(result, store);
    const [ref] = rendered.media;
    expect(ref?.url).toBe(`http://127.0.0.1:4100/media/${ref?.id}.png`);
    expect(rendered.text).toContain(`[image/png, 12.3 KiB](${ref?.url})`);
    expect(await readFile(join(root, 'media', `${ref?.id}.png`))).toEqual(png);
  });

  it('renders a text-only result unchanged and an empty one as empty', async () => {
    const saver = fakeSaver();
    const text = normalizeToolResult({ content: [{ type: 'text', text: 'just text' }] });
    expect(await renderResultWithMedia(text, saver)).toEqual({ text: 'just text', media: [] });
    expect(await renderResultWithMedia(normalizeToolResult({ content: [] }), saver)).toEqual({
      text: '',
      media: [],
    });
    expect(saver.saved).toEqual([]);
  });

  it('fails the render when a save fails', async () => {
    const failing: MediaSaver = { save: () => Promise.reject(new Error('disk full')) };
    await expect(renderResultWithMedia(result, failing)).rejects.toThrow('disk full');
  });
});

describe('markdown pieces', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(12_595)).toBe('12.3 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('escapes link text and destination so a server cannot break out of the link', () => {
    expect(markdownLink({ name: 'a [b] \\ c\nd', uri: 'https://x.test/a b(c)<d>' })).toBe(
      '[a \\[b\\] \\\\ c d](https://x.test/a%20b%28c%29%3Cd%3E)',
    );
    expect(markdownLink({ name: '  ', uri: 'file:///x' })).toBe('[file:///x](file:///x)');
  });
});
