import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, resolveGateway } from '../../../src/core/config/gateway-config.js';
import type { ApiError, ApiSession } from '../../../src/gateway/api/api-types.js';
import {
  ensureLocalToken,
  LOCAL_TOKEN_FILE,
  type LocalToken,
  localCookieName,
  readLocalToken,
} from '../../../src/gateway/http/auth/local-token.js';
import { type HttpGateway, startHttpGateway } from '../../../src/gateway/http-gateway.js';
import { quietLog } from '../modern-client.js';
import { ApiClient, type ApiUnderTest, kitchen, startApiUnderTest } from './api-harness.js';

/**
 * Without configured authentication a loopback address is any local user's, so the API,
 * media and the management tools that change servers need the local token: a file in the data
 * dir only its owner can read, sent as a bearer token or, by the dashboard, as the cookie its
 * login link sets. Reads of the MCP endpoint stay open to local clients.
 */
let under: ApiUnderTest;
let token: LocalToken;
let gateway: HttpGateway;
let origin: string;

beforeAll(async () => {
  under = await startApiUnderTest({
    servers: [kitchen('kitchen')],
    ready: ['mcp__kitchen__echo'],
    host: { governance: { mode: 'full-auto' } },
  });
  token = await ensureLocalToken(under.dataDir);
  gateway = await startHttpGateway(under.host, resolveGateway({ port: 0, management: true }), {
    log: quietLog,
    localToken: token,
  });
  origin = new URL(gateway.url).origin;
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await under?.close();
});

const sh = { name: 'evil', entry: { command: 'sh', args: ['-c', 'touch /tmp/owned'] } };

describe('the token file', () => {
  it('is made at the first start, readable by its owner only, and kept', async () => {
    const file = join(under.dataDir, LOCAL_TOKEN_FILE);
    expect(token.file).toBe(file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(token.value);
    expect(token.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await ensureLocalToken(under.dataDir)).toEqual(token);
    expect(await readLocalToken(under.dataDir)).toBe(token.value);
  });

  it('is replaced when others could read it, and refused when it is not a plain file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-local-token-'));
    try {
      const first = await ensureLocalToken(dir);
      await chmod(first.file!, 0o644);
      await expect(readLocalToken(dir)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      const second = await ensureLocalToken(dir);
      expect(second.value).not.toBe(first.value);
      expect((await stat(second.file!)).mode & 0o777).toBe(0o600);

      const other = await mkdtemp(join(tmpdir(), 'sb-local-token-'));
      await writeFile(join(dir, 'elsewhere'), `${'x'.repeat(43)}\n`, { mode: 0o600 });
      await symlink(join(dir, 'elsewhere'), join(other, LOCAL_TOKEN_FILE));
      await expect(ensureLocalToken(other)).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
      await rm(other, { recursive: true, force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the API without the token', () => {
  it('refuses every route with a 401 that says where the token is, and changes nothing', async () => {
    const bare = new ApiClient(origin);
    for (const [method, path, body] of [
      ['POST', '/api/servers', sh],
      ['GET', '/api/servers', undefined],
      ['GET', '/api/session', undefined],
      ['POST', '/api/inbox/some-id', { action: 'accept' }],
      ['DELETE', '/api/servers/kitchen', undefined],
      ['GET', '/media/x.png', undefined],
    ] as const) {
      const response = await bare.request(path, { method, ...(body && { body }), csrf: false });
      expect(response.status, `${method} ${path}`).toBe(401);
      const { error } = (await response.json()) as ApiError;
      expect(error.code).toBe('UNAUTHORIZED');
      expect(error.message).toContain(token.file!);
      expect(error.message).toContain('Authorization: Bearer');
      expect(error.details).toEqual({ tokenFile: token.file });
    }
    expect(under.host.serverConfig('evil')).toBeUndefined();
    expect(under.host.servers().find((s) => s.name === 'kitchen')?.state).toBe('connected');
  });

  it('refuses a bearer token that is not the local token, naming where it is', async () => {
    const wrong = new ApiClient(origin, 'x'.repeat(43));
    const error = await wrong.error('/api/servers', {}, 401);
    expect(error.message).toContain('refused');
    expect(error.message).toContain(token.file!);
  });
});

describe('the API with the token', () => {
  it('takes it as a bearer token: the caller is the local owner and may manage servers', async () => {
    const owner = new ApiClient(origin, token.value);
    const session = await owner.json<ApiSession>('/api/session');
    expect(session).toMatchObject({ principal: 'local', canManage: true });
    const added = await owner.request('/api/servers', {
      body: { name: 'added', entry: { command: process.execPath, args: ['-e', '0'], enabled: false } },
      csrf: false,
    });
    expect(added.status).toBe(201);
    expect((await owner.request('/api/servers/added', { method: 'DELETE', csrf: false })).status).toBe(204);
  });

  it('signs a browser in through the login link: an HttpOnly, SameSite=Strict cookie and a clean redirect', async () => {
    const login = await fetch(`${origin}/ui/?token=${token.value}`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/ui/');
    const cookie = login.headers.get('set-cookie')!;
    const name = localCookieName(Number(new URL(origin).port));
    expect(cookie).toBe(`${name}=${token.value}; Path=/; HttpOnly; SameSite=Strict`);
    expect(gateway.dashboardLoginUrl).toBe(`${origin}/ui/?token=${token.value}`);

    const browser = new ApiClient(origin, { cookie: `${name}=${token.value}` });
    expect((await browser.json<ApiSession>('/api/session')).principal).toBe('local');
    // A cookie is ambient: state changes still need the CSRF header.
    const noCsrf = await browser.error('/api/servers/kitchen/reload', { method: 'POST', csrf: false }, 403);
    expect(noCsrf.code).toBe('CSRF_REQUIRED');
    // Another port's cookie (another gateway on this host) is not this one's.
    const otherPort = new ApiClient(origin, { cookie: `${localCookieName(1)}=${token.value}` });
    expect((await otherPort.request('/api/session')).status).toBe(401);
  });

  it('refuses a login link with another token, setting no cookie', async () => {
    const login = await fetch(`${origin}/ui/?token=${'y'.repeat(43)}`, { redirect: 'manual' });
    expect(login.status).toBe(401);
    expect(login.headers.get('set-cookie')).toBeNull();
    expect(await login.text()).toContain(token.file!);
  });
});

describe('the MCP endpoint', () => {
  async function mcpClient(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'local-token-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
    );
    return client;
  }

  it('serves local clients without the token, but only the owner gets the tools that change servers', async () => {
    const name = localCookieName(Number(new URL(origin).port));
    // The cookie counts on the dashboard's paths only, never on the MCP endpoint.
    const tries: Record<string, string>[] = [{}, { cookie: `${name}=${token.value}` }];
    for (const headers of tries) {
      const client = await mcpClient(headers);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('mcp__kitchen__echo');
        expect(names).toContain('mcp__switchboard__list_mcp');
        expect(names).not.toContain('mcp__switchboard__register_mcp');
        const refused = await client
          .callTool({ name: 'mcp__switchboard__register_mcp', arguments: { name: 'evil', command: 'sh' } })
          .then(
            () => 'ran',
            (error: { code?: number }) => error.code,
          );
        expect(refused).toBe(-32602);
      } finally {
        await client.close();
      }
    }
    expect(under.host.serverConfig('evil')).toBeUndefined();

    const owner = await mcpClient({ authorization: `Bearer ${token.value}` });
    try {
      const names = (await owner.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['mcp__switchboard__register_mcp', 'mcp__switchboard__toggle_mcp']),
      );
      const toggled = await owner.callTool({
        name: 'mcp__switchboard__toggle_mcp',
        arguments: { name: 'kitchen', enabled: true },
      });
      expect(toggled.isError).not.toBe(true);
    } finally {
      await owner.close();
    }
  });
});

describe('configured authentication', () => {
  it('keeps working as before: the local token is no credential there', async () => {
    const bearer = await startHttpGateway(
      under.host,
      resolveGateway({
        port: 0,
        auth: { mode: 'bearer', tokens: [{ id: 'ci', sha256: hashToken('ci-token-123') }] },
      }),
      { log: quietLog, localToken: token },
    );
    try {
      expect(bearer.localToken).toBeUndefined();
      const base = new URL(bearer.url).origin;
      expect((await new ApiClient(base, token.value).request('/api/session')).status).toBe(401);
      expect((await new ApiClient(base, 'ci-token-123').json<ApiSession>('/api/session')).principal).toBe(
        'ci',
      );
    } finally {
      await bearer.close();
    }
  });
});
