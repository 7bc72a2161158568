import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { abortOnClientGone, toWebRequest, writeWebResponse } from '../../fixtures/node-http-adapter.js';

/**
 * A small authorization server and a protected MCP server on 127.0.0.1 for the OAuth client's
 * tests: just enough of OAuth 2.1 to be strict where the client's safety depends on it (PKCE
 * S256, one-time codes, rotating refresh tokens whose replay is refused) and to log every
 * request, so tests can assert what was (and was not) sent.
 */

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly params: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
}

export interface AuthServerOptions {
  /** Changes the metadata document before it is served. */
  readonly metadata?: (issuer: string, doc: Record<string, unknown>) => Record<string, unknown>;
  /** Where the metadata is served (default the RFC 8414 path). */
  readonly metadataPath?: string;
  /** What `iss` the authorization response carries (default: the issuer). */
  readonly iss?: 'correct' | 'wrong' | 'omit';
  readonly expiresIn?: number;
  /** Scopes granted whatever was asked (default: what was asked). */
  readonly grant?: (asked: string | undefined) => string | undefined;
}

export interface TestAuthServer {
  readonly issuer: string;
  readonly requests: SeenRequest[];
  /** Access tokens issued and not superseded, with their scope. */
  readonly tokens: Map<string, { scope: string | undefined }>;
  /** Requests to `path` (e.g. "/token"), optionally of one grant type. */
  seen(path: string, grantType?: string): SeenRequest[];
  /** Makes every refresh answer `invalid_grant`. */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

export async function startAuthServer(options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const requests: SeenRequest[] = [];
  const codes = new Map<string, { challenge: string; scope: string | undefined; redirect: string }>();
  const refreshTokens = new Map<string, string | undefined>();
  const tokens = new Map<string, { scope: string | undefined }>();
  let revoked = false;
  let n = 0;
  // RFC 6749 §4.4.3: no refresh token for client_credentials.
  const issue = (res: ServerResponse, scope: string | undefined, withRefresh = true) => {
    n++;
    const access = `at-${n}`;
    const refresh = `rt-${n}`;
    tokens.set(access, { scope });
    if (withRefresh) refreshTokens.set(refresh, scope);
    json(res, 200, {
      access_token: access,
      token_type: 'Bearer',
      expires_in: options.expiresIn ?? 3600,
      ...(withRefresh && { refresh_token: refresh }),
      ...(scope !== undefined && { scope }),
    });
  };
  const { server, url: issuer } = await listen(async (req, res, url, params) => {
    requests.push({ method: req.method ?? 'GET', path: url.pathname, params, headers: req.headers });
    if (url.pathname === (options.metadataPath ?? '/.well-known/oauth-authorization-server')) {
      const doc = {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'],
        authorization_response_iss_parameter_supported: true,
      };
      return json(res, 200, options.metadata ? options.metadata(issuer, doc) : doc);
    }
    if (url.pathname === '/register') {
      const body = JSON.parse(params.get('__json') ?? '{}') as Record<string, unknown>;
      return json(res, 201, { ...body, client_id: `client-${randomUUID()}` });
    }
    if (url.pathname === '/authorize') {
      const code = `code-${randomUUID()}`;
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      const scope = url.searchParams.get('scope') ?? undefined;
      codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', scope, redirect });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      if (options.iss !== 'omit')
        back.searchParams.set('iss', options.iss === 'wrong' ? 'https://evil.example' : issuer);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token') {
      const grant = params.get('grant_type');
      if (grant === 'authorization_code') {
        const entry = codes.get(params.get('code') ?? '');
        codes.delete(params.get('code') ?? '');
        const verifier = params.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!entry || entry.challenge !== challenge || entry.redirect !== params.get('redirect_uri')) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'bad code or verifier' });
        }
        return issue(res, options.grant ? options.grant(entry.scope) : entry.scope);
      }
      if (grant === 'refresh_token') {
        const presented = params.get('refresh_token') ?? '';
        if (revoked || !refreshTokens.has(presented)) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token not valid' });
        }
        const scope = refreshTokens.get(presented);
        refreshTokens.delete(presented); // rotation: a refresh token works once
        return issue(res, scope);
      }
      if (grant === 'client_credentials') return issue(res, params.get('scope') ?? undefined, false);
      if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return json(res, 400, { error: 'invalid_grant', error_description: 'assertion expired' });
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    json(res, 404, { error: 'not_found' });
  });
  return {
    issuer,
    requests,
    tokens,
    seen: (path, grantType) =>
      requests.filter(
        (r) => r.path === path && (grantType === undefined || r.params.get('grant_type') === grantType),
      ),
    revokeRefreshTokens: () => {
      revoked = true;
    },
    close: () => close(server),
  };
}

export interface ProtectedServerOptions {
  readonly authServer: string;
  /** The `resource` published (default the MCP URL). */
  readonly resource?: (url: string) => string;
  readonly scopesSupported?: readonly string[];
  /** Whether `token` may make this JSON-RPC call: true, or the scope it lacks. */
  readonly check: (token: string | undefined, rpcMethod: string | undefined) => true | { missing?: string };
}

export interface TestProtectedServer {
  readonly url: string;
  readonly metadataUrl: string;
  /** `Authorization` headers seen on MCP requests, in order. */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** An MCP server (tool `whoami`) that answers only requests `check` lets through. */
export async function startProtectedServer(options: ProtectedServerOptions): Promise<TestProtectedServer> {
  const authorizations: (string | undefined)[] = [];
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Says hello.' }, async () => ({
        content: [{ type: 'text', text: 'hello' }],
      }));
      return server;
    },
    { legacy: 'stateless', onerror: () => {} },
  );
  let base = '';
  const { server, url } = await listen(async (req, res, u, _params, body) => {
    const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
    if (u.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, {
        resource: options.resource ? options.resource(`${base}/mcp`) : `${base}/mcp`,
        authorization_servers: [options.authServer],
        ...(options.scopesSupported && { scopes_supported: options.scopesSupported }),
      });
    }
    if (u.pathname !== '/mcp') return json(res, 404, {});
    const header = req.headers.authorization;
    authorizations.push(header);
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const rpc =
      req.method === 'POST' ? (safeJson(body) as { method?: string } | undefined)?.method : undefined;
    const verdict = options.check(token, rpc);
    if (verdict !== true) {
      const scope = verdict.missing ? `, scope="${verdict.missing}"` : '';
      const error = verdict.missing && token ? 'insufficient_scope' : 'invalid_token';
      res.writeHead(error === 'insufficient_scope' ? 403 : 401, {
        'www-authenticate': `Bearer error="${error}"${scope}, resource_metadata="${metadataUrl}"`,
        'content-type': 'application/json',
      });
      res.end(JSON.stringify({ error }));
      return;
    }
    const request = toWebRequest(req, body, abortOnClientGone(res).signal);
    await writeWebResponse(res, await handler.fetch(request));
  });
  base = url;
  return {
    url: `${url}/mcp`,
    metadataUrl: `${url}/.well-known/oauth-protected-resource/mcp`,
    authorizations,
    close: async () => {
      await handler.close();
      await close(server);
    },
  };
}

type Route = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: URLSearchParams,
  body: Buffer,
) => Promise<void> | void;

async function listen(route: Route): Promise<{ server: Server; url: string }> {
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', base);
      const type = req.headers['content-type'] ?? '';
      // A GET's parameters are its query; a POST's its form or JSON body.
      const params =
        req.method === 'GET'
          ? url.searchParams
          : type.includes('application/json')
            ? new URLSearchParams({ __json: body.toString() })
            : new URLSearchParams(body.toString());
      Promise.resolve(route(req, res, url, params, body)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: base };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function safeJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
