import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../../src/client/auth/file-credential-store.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import { loginServer } from '../../../src/host/auth/host-login.js';
import type { ServerStatus } from '../../../src/host/host.js';
import { Host } from '../../../src/host/host.js';
import {
  type AuthorizationServer,
  startAuthorizationServer,
} from '../../fixtures/auth/authorization-server.js';
import { followRedirects } from '../../fixtures/auth/follow-redirects.js';
import {
  type ProtectedMcpServer,
  startProtectedMcpServer,
} from '../../fixtures/auth/protected-mcp-server.js';
import { catalogHas } from '../../helpers/wait.js';

/**
 * OAuth end to end through the host, against a real authorization server (oidc-provider) and
 * a protected MCP server that verifies JWT access tokens: discovery from the 401, dynamic
 * registration, code + PKCE with a headless "browser", tokens in 0600 files, proactive
 * refresh with rotation, and revocation ending in `needs_auth` — and no token in any log.
 */
let dataDir: string;
let as: AuthorizationServer;
let rs: ProtectedMcpServer;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-oauth-'));
  as = await startAuthorizationServer({ refreshTokens: 'always' });
  rs = await startProtectedMcpServer({ authorizationServer: as });
});

afterEach(async () => {
  await host?.close();
  host = undefined;
  await rs.close();
  await as.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function until(h: Host, what: string, predicate: (s: ServerStatus) => boolean): Promise<ServerStatus> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = h.servers().find((s) => s.name === 'protected');
    if (status && predicate(status)) return status;
    if (Date.now() > deadline) throw new Error(`never ${what}: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function start(): Promise<Host> {
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [
      normalizeServerEntry({ name: 'protected', url: rs.url, auth: { type: 'oauth', scopes: ['mcp:read'] } }),
    ],
  });
  return host;
}

/** A "browser" that follows the authorization URL through consent back to the loopback listener. */
const headlessBrowser = async (url: string) => {
  const redirectUri = new URL(url).searchParams.get('redirect_uri')!;
  await followRedirects(url, { until: redirectUri, deliver: true });
  return true;
};

async function loggedIn(): Promise<Host> {
  const h = await start();
  const waiting = await until(h, 'asked for a login', (s) => s.state === 'needs_auth');
  expect(waiting.error?.message).toContain('switchboard auth protected');
  const printed: string[] = [];
  await h.login('protected', { openBrowser: headlessBrowser, print: (l) => printed.push(l) });
  expect(printed[0]).toMatch(/^Opened the browser/);
  await until(h, 'connected', (s) => s.state === 'connected' && s.tools > 0);
  return h;
}

async function whoami(h: Host): Promise<unknown> {
  await catalogHas(h, 'mcp__protected__whoami');
  const result = await h.callTool('mcp__protected__whoami', {});
  return result.kind === 'json' ? result.json : result.text;
}

describe('OAuth through the host', () => {
  it('logs in with code + PKCE, stores the tokens in 0600 files, and calls the protected server', async () => {
    const h = await loggedIn();
    expect(await whoami(h)).toMatchObject({ sub: 'user-1', scopes: expect.arrayContaining(['mcp:read']) });
    expect(as.stats.registrations).toHaveLength(1);
    expect(as.tokenRequestCount('authorization_code', 'success')).toBe(1);
    // Every authorized request carried a verified token for this exact resource.
    expect(rs.requests.filter((r) => r.authorization).every((r) => r.outcome === 'ok')).toBe(true);

    const store = new FileCredentialStore({ dataDir });
    const [issuer] = await store.issuers('protected');
    expect(issuer).toBe(as.issuer);
    const file = store.fileOf('protected', issuer!);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'credentials'))).mode & 0o777).toBe(0o700);
    const saved = await store.load('protected', issuer!);
    expect(saved?.tokens?.access_token).toMatch(/^ey/);

    // No token, in any log.
    const logs = join(dataDir, 'logs');
    for (const name of await readdir(logs)) {
      const text = await readFile(join(logs, name), 'utf8');
      expect(text).not.toContain(saved!.tokens!.access_token);
      if (saved!.tokens!.refresh_token) expect(text).not.toContain(saved!.tokens!.refresh_token);
    }
  });

  it('finds the stored login after a restart, refreshes ahead of expiry and keeps the rotated token', async () => {
    const first = await loggedIn();
    await first.close();
    host = undefined;
    const store = new FileCredentialStore({ dataDir });
    const before = await store.load('protected', as.issuer);
    expect(before?.tokens?.refresh_token).toBeTruthy();
    // The stored access token is within a minute of expiring: the next connect refreshes first.
    await store.save('protected', as.issuer, {
      ...before!,
      tokens: { ...before!.tokens!, expiresAt: Date.now() + 5_000 },
    });
    const h = await start();
    await until(h, 'connected without a login', (s) => s.state === 'connected');
    expect(await whoami(h)).toMatchObject({ sub: 'user-1' });
    expect(as.tokenRequestCount('refresh_token', 'success')).toBe(1);
    const after = await store.load('protected', as.issuer);
    expect(after?.tokens?.refresh_token).toBeTruthy();
    expect(after?.tokens?.refresh_token).not.toBe(before?.tokens?.refresh_token);
    expect(as.tokenRequestCount('authorization_code')).toBe(1);
  });

  it('turns a revoked grant into needs_auth with the command that fixes it, not a crash', async () => {
    const h = await loggedIn();
    await as.revokeAll();
    const store = new FileCredentialStore({ dataDir });
    const saved = await store.load('protected', as.issuer);
    await store.save('protected', as.issuer, {
      ...saved!,
      tokens: { ...saved!.tokens!, expiresAt: Date.now() - 1_000 },
    });
    await expect(h.callTool('mcp__protected__whoami', {})).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    const status = await until(h, 'needs_auth', (s) => s.state === 'needs_auth');
    expect(status.error?.message).toContain('switchboard auth protected');
    expect(as.tokenRequestCount('refresh_token', 'error')).toBeGreaterThanOrEqual(1);

    expect(await h.logout('protected')).toBe(1);
    expect(await new FileCredentialStore({ dataDir }).issuers('protected')).toEqual([]);
  });

  it('lets only one of two processes refresh when both find the token expiring', async () => {
    const h = await loggedIn();
    await h.close();
    host = undefined;
    const store = new FileCredentialStore({ dataDir });
    const saved = await store.load('protected', as.issuer);
    await store.save('protected', as.issuer, {
      ...saved!,
      tokens: { ...saved!.tokens!, expiresAt: Date.now() + 5_000 },
    });
    const worker = join(dirname(fileURLToPath(import.meta.url)), 'refresh-worker.ts');
    const children = [0, 1].map(() =>
      spawn(process.execPath, ['--import', 'tsx', worker, dataDir, rs.url], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    try {
      const outputs = children.map((c) => createInterface({ input: c.stdout! })[Symbol.asyncIterator]());
      for (const lines of outputs) expect((await lines.next()).value).toBe('ready');
      for (const c of children) c.stdin!.write('go\n');
      const tokens = await Promise.all(outputs.map(async (lines) => (await lines.next()).value as string));
      expect(as.tokenRequestCount('refresh_token')).toBe(1);
      expect(tokens[0]).toMatch(/^token ey/);
      expect(tokens[1]).toBe(tokens[0]);
      expect(tokens[0]).not.toBe(`token ${saved!.tokens!.access_token}`);
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    }
  });

  it('notices a login made by another process and connects a waiting server', async () => {
    const h = await start();
    await until(h, 'asked for a login', (s) => s.state === 'needs_auth');
    // What `switchboard auth protected` does in another terminal: its own store, same files.
    const config = normalizeServerEntry({
      name: 'protected',
      url: rs.url,
      auth: { type: 'oauth', scopes: ['mcp:read'] },
    });
    await loginServer(config, new FileCredentialStore({ dataDir }), {}, { openBrowser: headlessBrowser });
    await until(h, 'connected after the outside login', (s) => s.state === 'connected');
    expect(await whoami(h)).toMatchObject({ sub: 'user-1' });
  });
});
