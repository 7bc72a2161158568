import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUiHandler, UI_CSP, type UiHandler } from '../../../src/gateway/ui/ui-handler.js';

/** The dashboard's static files, served from a real folder next to a file it must never serve. */
let root: string;
let ui: UiHandler;
const INDEX = '<!doctype html><title>index</title>';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-ui-'));
  const web = join(root, 'web');
  await mkdir(join(web, 'img'), { recursive: true });
  await mkdir(join(web, 'folder.js'));
  await writeFile(join(web, 'index.html'), INDEX);
  await writeFile(join(web, 'app.js'), 'console.log(1);');
  await writeFile(join(web, 'styles.css'), 'body{}');
  await writeFile(join(web, 'img', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(join(web, 'data.bin'), 'bytes');
  await writeFile(join(root, 'secret.txt'), 'do not serve');
  ui = createUiHandler({ dir: web });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => ui(new Request(`http://127.0.0.1:7777${path}`, init));

describe('createUiHandler', () => {
  it.each([
    ['/ui/app.js', 'text/javascript; charset=utf-8', 'console.log(1);'],
    ['/ui/styles.css', 'text/css; charset=utf-8', 'body{}'],
    ['/ui/index.html', 'text/html; charset=utf-8', INDEX],
    ['/ui/data.bin', 'application/octet-stream', 'bytes'],
  ])('serves %s as %s with the dashboard CSP', async (path, type, body) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.headers.get('content-security-policy')).toBe(UI_CSP);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(await response.text()).toBe(body);
  });

  it('serves files in subfolders with their bytes intact', async () => {
    const response = await get('/ui/img/logo.png');
    expect(response.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it('answers the page itself for the root and for client-side routes', async () => {
    for (const path of ['/ui/', '/ui/servers', '/ui/tools/mcp__weather__get_forecast']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toBe(INDEX);
    }
  });

  it('redirects the bare prefix to the folder, keeping the query', async () => {
    const response = await get('/ui?x=1');
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('http://127.0.0.1:7777/ui/?x=1');
  });

  it('answers 404 for a file that is not there, a folder, and a path outside the prefix', async () => {
    for (const path of ['/ui/missing.js', '/ui/folder.js', '/ui/app.js/x.js', '/other/app.js']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    }
  });

  it('refuses paths that climb out of the folder, however they are encoded', async () => {
    for (const path of [
      '/ui/..%2fsecret.txt',
      '/ui/%2e%2e/secret.txt',
      '/ui/img%2f..%2f..%2fsecret.txt',
      '/ui/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/ui/%2fetc%2fpasswd.txt',
      '/ui/app.js%00.txt',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('do not serve');
    }
  });

  it('answers 400 for a path that is not valid percent-encoding', async () => {
    expect((await get('/ui/%E0%A4%A.js')).status).toBe(400);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const response = await get('/ui/app.js', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-length')).toBe('15');
    expect(await response.text()).toBe('');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow: GET, HEAD', async (method) => {
    const response = await get('/ui/app.js', { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves under another prefix when told to', async () => {
    const mounted = createUiHandler({ dir: join(root, 'web'), prefix: '/dashboard' });
    const response = await mounted(new Request('http://127.0.0.1/dashboard/app.js'));
    expect(await response.text()).toBe('console.log(1);');
    expect((await mounted(new Request('http://127.0.0.1/ui/app.js'))).status).toBe(404);
  });

  it('shows a 503 page saying how to build when the dashboard is not built', async () => {
    const unbuilt = createUiHandler({ dir: join(root, 'not-built') });
    const page = await unbuilt(new Request('http://127.0.0.1/ui/'));
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(UI_CSP);
    expect(await page.text()).toContain('npm run build:web');
    const head = await unbuilt(new Request('http://127.0.0.1/ui/', { method: 'HEAD' }));
    expect(head.status).toBe(503);
    expect(await head.text()).toBe('');
    expect((await unbuilt(new Request('http://127.0.0.1/ui/app.js'))).status).toBe(404);
  });
});
