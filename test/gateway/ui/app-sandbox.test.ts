import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostOriginOptions, hostOrigin } from '../../../src/gateway/http/middleware/host-origin.js';
import {
  domainVerdict,
  sandboxDomain,
  sandboxLabel,
  sandboxLabelOfHost,
  sandboxSigner,
} from '../../../src/gateway/ui/app-sandbox.js';
import { createUiHandler, isSandboxPath, type UiHandler } from '../../../src/gateway/ui/ui-handler.js';
import { contextFor, runStep } from '../http/harness.js';

/**
 * Each server's MCP App views on an origin of their own (`app-<hex>.localhost`): the label
 * derived from the server's name, the declared `domain` answered, the sandbox page served
 * there only with the token the API issued for its CSP, and nothing else served there.
 */
describe('a server’s sandbox origin', () => {
  it('is derived from the server’s name: stable, distinct, a valid host label', () => {
    expect(sandboxLabel('weather')).toBe(sandboxLabel('weather'));
    expect(sandboxLabel('weather')).not.toBe(sandboxLabel('weather2'));
    expect(sandboxLabel('weather')).toMatch(/^app-[0-9a-f]{16}$/);
    expect(sandboxDomain('weather')).toBe(`${sandboxLabel('weather')}.localhost`);
    // Names that are not host labels still give one.
    expect(sandboxLabel('Ünïcode server/..')).toMatch(/^app-[0-9a-f]{16}$/);
  });

  it('is recognised in a Host header only with the listening port and a label of ours', () => {
    const label = sandboxLabel('weather');
    expect(sandboxLabelOfHost(`${label}.localhost:7777`, 7777)).toBe(label);
    expect(sandboxLabelOfHost(`${label.toUpperCase()}.LOCALHOST:7777`, 7777)).toBe(label);
    expect(sandboxLabelOfHost(`${label}.localhost:7778`, 7777)).toBeUndefined();
    expect(sandboxLabelOfHost(`${label}.localhost.evil.test:7777`, 7777)).toBeUndefined();
    expect(sandboxLabelOfHost('evil.localhost:7777', 7777)).toBeUndefined();
    expect(sandboxLabelOfHost(`x.${label}.localhost:7777`, 7777)).toBeUndefined();
  });

  it('answers a declared domain: honoured when it is the server’s own, said when it cannot be', () => {
    expect(domainVerdict(undefined, 'weather')).toBeUndefined();
    expect(domainVerdict(sandboxDomain('weather'), 'weather')).toMatchObject({ honoured: true });
    const other = domainVerdict('a904794854a047f6.claudemcpcontent.com', 'weather');
    expect(other?.honoured).toBe(false);
    expect(other?.notice).toContain('cannot provide');
    expect(other?.notice).toContain(sandboxDomain('weather'));
    // Another server's domain is not given to this one.
    expect(domainVerdict(sandboxDomain('bank'), 'weather')?.honoured).toBe(false);
  });

  it('signs a page for one label and one CSP; a replica with the same secret checks it', () => {
    const secret = new Uint8Array(32).fill(7);
    const a = sandboxSigner(secret);
    const b = sandboxSigner(secret);
    const token = a.sign('app-0123456789abcdef', "default-src 'none'");
    expect(b.verify('app-0123456789abcdef', "default-src 'none'", token)).toBe(true);
    expect(b.verify('app-0123456789abcdef', "default-src 'none'; connect-src https://x.test", token)).toBe(
      false,
    );
    expect(b.verify('app-fedcba9876543210', "default-src 'none'", token)).toBe(false);
    expect(sandboxSigner().verify('app-0123456789abcdef', "default-src 'none'", token)).toBe(false);
    expect(b.verify('app-0123456789abcdef', "default-src 'none'", '')).toBe(false);
    expect(b.verify('app-0123456789abcdef', "default-src 'none'", '!!')).toBe(false);
  });
});

describe('the sandbox origin’s files', () => {
  let root: string;
  let ui: UiHandler;
  const signer = sandboxSigner();
  const label = sandboxLabel('weather');
  const csp = "default-src 'none'; connect-src 'none'";

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sb-sandbox-'));
    await mkdir(join(root, 'web'));
    for (const file of ['index.html', 'app.js', 'sandbox.html', 'sandbox.js'])
      await writeFile(join(root, 'web', file), file);
    ui = createUiHandler({ dir: join(root, 'web'), sandboxSigner: signer });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const at = (host: string, path: string) => ui(new Request(`http://${host}:7777${path}`));

  it('serves the proxy page with the token issued for its label and CSP, and its script', async () => {
    const query = new URLSearchParams({ host: 'http://127.0.0.1:7777', csp, sig: signer.sign(label, csp) });
    const page = await at(`${label}.localhost`, `/ui/sandbox.html?${query}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors http://127.0.0.1:7777');
    expect((await at(`${label}.localhost`, '/ui/sandbox.js')).status).toBe(200);
  });

  it('refuses a page whose CSP or origin the token was not issued for', async () => {
    const wider = "default-src 'none'; connect-src https://exfiltrate.test";
    const forged = new URLSearchParams({
      host: 'http://127.0.0.1:7777',
      csp: wider,
      sig: signer.sign(label, csp),
    });
    expect((await at(`${label}.localhost`, `/ui/sandbox.html?${forged}`)).status).toBe(403);
    const elsewhere = sandboxLabel('bank');
    const moved = new URLSearchParams({ host: 'http://127.0.0.1:7777', csp, sig: signer.sign(label, csp) });
    expect((await at(`${elsewhere}.localhost`, `/ui/sandbox.html?${moved}`)).status).toBe(403);
    expect((await at(`${label}.localhost`, `/ui/sandbox.html?csp=x`)).status).toBe(403);
  });

  it('serves nothing of the dashboard there', async () => {
    for (const path of ['/ui/', '/ui/index.html', '/ui/app.js', '/ui/tools'])
      expect((await at(`${label}.localhost`, path)).status, path).toBe(404);
    // The dashboard's own name is unchanged.
    expect((await at('127.0.0.1', '/ui/app.js')).status).toBe(200);
    expect(isSandboxPath('/ui/sandbox.html')).toBe(true);
    expect(isSandboxPath('/ui/app.js')).toBe(false);
  });

  it('gets past the Host check for those files only, asked for by itself', async () => {
    const options: HostOriginOptions = {
      port: 7777,
      allowedHosts: [],
      allowedOrigins: [],
      sandboxPaths: (p) => isSandboxPath(p),
    };
    const status = async (path: string, headers: Record<string, string>) => {
      const ctx = contextFor(new Request(`http://127.0.0.1:7777${path}`, { headers }));
      const { response, error } = await runStep(hostOrigin(options), ctx);
      return error?.status ?? response?.status;
    };
    const host = `${label}.localhost:7777`;
    expect(await status('/ui/sandbox.html', { host })).toBe(200);
    expect(await status('/ui/sandbox.js', { host, origin: `http://${host}` })).toBe(200);
    expect(await status('/api/servers', { host })).toBe(403);
    expect(await status('/mcp', { host })).toBe(403);
    expect(await status('/ui/index.html', { host })).toBe(403);
    expect(await status('/ui/sandbox.html', { host: `${label}.localhost:8080` })).toBe(403);
    expect(await status('/ui/sandbox.js', { host, origin: 'http://evil.test' })).toBe(403);
    // A view's origin is no origin the API or MCP endpoint take requests from.
    expect(await status('/api/servers', { host: '127.0.0.1:7777', origin: `http://${host}` })).toBe(403);
  });
});
