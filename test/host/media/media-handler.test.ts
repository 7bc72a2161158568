import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMediaHandler, type MediaHandler } from '../../../src/host/media/media-handler.js';
import { MediaStore } from '../../../src/host/media/media-store.js';

/** The media handler in-process: web-standard Requests against a real store in a temp dir. */
let root: string;
let store: MediaStore;
let handle: MediaHandler;
const ORIGIN = 'http://127.0.0.1:4100';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-media-handler-'));
  store = new MediaStore({ dir: join(root, 'media'), baseUrl: `${ORIGIN}/media` });
  handle = createMediaHandler({ store });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const get = (path: string, method = 'GET') => handle(new Request(`${ORIGIN}${path}`, { method }));

describe('media handler', () => {
  it('serves a saved image inline with its type, length and nosniff', async () => {
    const data = new Uint8Array([1, 2, 3, 4, 5]);
    const ref = await store.save({ mimeType: 'image/png', data });
    const response = await handle(new Request(ref.url));
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'image/png',
      'content-length': '5',
      'x-content-type-options': 'nosniff',
      'content-disposition': `inline; filename="${ref.fileName}"`,
      'content-security-policy': "default-src 'none'; sandbox",
    });
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(data);
  });

  it.each([
    ['image/svg+xml', 'svg'],
    ['text/html', 'html'],
  ])('sends %s as an attachment', async (mimeType, ext) => {
    const ref = await store.save({ mimeType, data: new TextEncoder().encode('<script>alert(1)</script>') });
    const response = await get(`/media/${ref.fileName}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(mimeType);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${ref.id}.${ext}"`);
    await response.body?.cancel();
  });

  it('answers HEAD with the headers and no body', async () => {
    const ref = await store.save({ mimeType: 'audio/wav', data: new Uint8Array(42) });
    const response = await get(`/media/${ref.fileName}`, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('content-length')).toBe('42');
    expect(response.body).toBeNull();
  });

  it('accepts a name percent-encoded once', async () => {
    const ref = await store.save({ mimeType: 'application/pdf', data: new Uint8Array(3) });
    const response = await get(`/media/${ref.id}%2Epdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    await response.body?.cancel();
  });

  it('answers 404 for a well-formed name that is not there, and outside the prefix', async () => {
    const missing = await get('/media/AAAAAAAAAAAAAAAAAAAAAA.png');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await missing.text()).toMatch(/expired/);
    expect((await get('/other/AAAAAAAAAAAAAAAAAAAAAA.png')).status).toBe(404);
    expect((await get('/media')).status).toBe(404);
  });

  it.each([
    '/media/..%2Fsecret.png',
    '/media/..%2fsecret.png',
    '/media/a%2Fb.png',
    '/media/a/b.png',
    '/media/%2Fetc%2Fpasswd',
    '/media/x.png/..%2F',
    '/media/AAAAAAAAAAAAAAAAAAAAAA..png',
    '/media/AAAAAAAAAAAAAAAAAAAAAA%252Epng',
    '/media/%252e%252e%252fsecret.png',
    '/media/%E0%A4%A',
    '/media/',
    `/media/${'A'.repeat(5000)}.png`,
  ])('answers 400 for %s', async (path) => {
    await writeFile(join(root, 'secret.png'), 'secret');
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).not.toContain('secret');
  });

  it('never serves a file outside the directory, however the path is written', async () => {
    await writeFile(join(root, 'secret.png'), 'secret');
    for (const path of ['/media/../secret.png', '/media/%2e%2e/secret.png', '/media/.%2E/secret.png']) {
      const response = await get(path);
      expect(response.status, path).not.toBe(200);
      expect(await response.text(), path).not.toBe('secret');
    }
  });

  it('answers 405 with Allow for other methods', async () => {
    const ref = await store.save({ mimeType: 'image/png', data: new Uint8Array(1) });
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await get(`/media/${ref.fileName}`, method);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('serves under a custom prefix', async () => {
    const custom = createMediaHandler({ store, prefix: '/files/' });
    const ref = await store.save({ mimeType: 'text/plain', data: new TextEncoder().encode('hi') });
    const response = await custom(new Request(`${ORIGIN}/files/${ref.fileName}`));
    expect(await response.text()).toBe('hi');
    expect((await custom(new Request(`${ORIGIN}/media/${ref.fileName}`))).status).toBe(404);
  });
});
