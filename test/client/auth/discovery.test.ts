import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverAuthorization } from '../../../src/client/auth/discovery.js';
import { rejection } from '../../helpers/rejection.js';

/** One origin serving JSON documents at fixed paths (404 elsewhere), logging what is asked. */
interface Origin {
  readonly url: string;
  readonly asked: string[];
  close(): Promise<void>;
}

const started: Origin[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((o) => o.close()));
});

async function origin(docs: (base: string) => Record<string, unknown>): Promise<Origin> {
  const asked: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const doc = docs(base)[req.url ?? ''];
    if (doc === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const o = {
    url: base,
    asked,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  started.push(o);
  return o;
}

const asDoc = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  response_types_supported: ['code'],
});

describe('discoverAuthorization', () => {
  it('reads the resource metadata named by the challenge first, then the authorization server at its path', async () => {
    const as = await origin((b) => ({
      '/.well-known/oauth-authorization-server/tenant1': asDoc(`${b}/tenant1`),
    }));
    const rs = await origin((b) => ({
      '/custom/prm.json': { resource: `${b}/mcp`, authorization_servers: [`${as.url}/tenant1`] },
    }));
    const d = await discoverAuthorization({
      server: 's',
      serverUrl: `${rs.url}/mcp`,
      resourceMetadataUrl: `${rs.url}/custom/prm.json`,
      fetch,
    });
    expect(d).toMatchObject({
      issuer: `${as.url}/tenant1`,
      legacy: false,
      resourceMetadataUrl: `${rs.url}/custom/prm.json`,
    });
    expect(rs.asked).toEqual(['/custom/prm.json']);
    expect(as.asked).toEqual(['/.well-known/oauth-authorization-server/tenant1']);
  });

  it('probes the path-based resource metadata before the root one', async () => {
    const as = await origin((b) => ({ '/.well-known/openid-configuration': asDoc(b) }));
    const rs = await origin((b) => ({
      '/.well-known/oauth-protected-resource': { resource: b, authorization_servers: [as.url] },
    }));
    const d = await discoverAuthorization({ server: 's', serverUrl: `${rs.url}/mcp`, fetch });
    expect(rs.asked).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(d.issuer).toBe(as.url);
    expect(d.metadata?.token_endpoint).toBe(`${as.url}/token`);
  });

  it('falls back to the server origin for a 2025-03-26 server, with or without metadata', async () => {
    const bare = await origin(() => ({}));
    const none = await discoverAuthorization({ server: 's', serverUrl: `${bare.url}/mcp`, fetch });
    expect(none).toEqual({ authorizationServerUrl: `${bare.url}/`, issuer: `${bare.url}/`, legacy: true });
    // An issuer with a path at the root metadata is accepted for such a server: same origin.
    const old = await origin((b) => ({ '/.well-known/oauth-authorization-server': asDoc(`${b}/oauth`) }));
    const d = await discoverAuthorization({ server: 's', serverUrl: `${old.url}/mcp`, fetch });
    expect(d).toMatchObject({ legacy: true, issuer: `${old.url}/oauth` });
  });

  it('refuses an authorization server the pre-registered client does not belong to', async () => {
    const rs = await origin((b) => ({
      '/.well-known/oauth-protected-resource/mcp': {
        resource: `${b}/mcp`,
        authorization_servers: ['https://a.example'],
      },
    }));
    const e = await rejection(
      discoverAuthorization({ server: 's', serverUrl: `${rs.url}/mcp`, issuer: 'https://b.example', fetch }),
    );
    expect(e.details).toMatchObject({ reason: 'issuer_not_allowed' });
  });

  it('refuses a plain-http authorization server off loopback before fetching its metadata', async () => {
    const rs = await origin((b) => ({
      '/.well-known/oauth-protected-resource/mcp': {
        resource: `${b}/mcp`,
        authorization_servers: ['http://as.example'],
      },
    }));
    const e = await rejection(discoverAuthorization({ server: 's', serverUrl: `${rs.url}/mcp`, fetch }));
    expect(e.details).toMatchObject({ reason: 'insecure_endpoint' });
  });

  it('accepts a resource naming a path above the server, refuses another origin', async () => {
    const as = await origin((b) => ({ '/.well-known/oauth-authorization-server': asDoc(b) }));
    const parent = await origin((b) => ({
      '/.well-known/oauth-protected-resource/api/mcp': {
        resource: `${b}/api`,
        authorization_servers: [as.url],
      },
    }));
    expect(
      (await discoverAuthorization({ server: 's', serverUrl: `${parent.url}/api/mcp`, fetch })).issuer,
    ).toBe(as.url);
    const other = await origin(() => ({
      '/.well-known/oauth-protected-resource/mcp': {
        resource: `${parent.url}/mcp`,
        authorization_servers: [as.url],
      },
    }));
    const e = await rejection(discoverAuthorization({ server: 's', serverUrl: `${other.url}/mcp`, fetch }));
    expect(e.details).toMatchObject({ reason: 'resource_mismatch' });
    expect(as.asked).toHaveLength(1);
  });
});
