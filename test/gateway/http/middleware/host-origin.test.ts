import { describe, expect, it } from 'vitest';
import { type HostOriginOptions, hostOrigin } from '../../../../src/gateway/http/middleware/host-origin.js';
import { contextFor, runStep } from '../harness.js';

const OPTIONS: HostOriginOptions = { port: 7777, allowedHosts: [], allowedOrigins: [] };

async function status(headers: Record<string, string>, options = OPTIONS, localPort?: number) {
  const ctx = contextFor(new Request('http://127.0.0.1:7777/mcp', { headers }), {
    ...(localPort !== undefined && { localPort }),
  });
  const { response, error } = await runStep(hostOrigin(options), ctx);
  return error?.status ?? response?.status;
}

describe('hostOrigin', () => {
  it('accepts loopback names and IPs with the listening port', async () => {
    for (const host of ['localhost:7777', '127.0.0.1:7777', '[::1]:7777', 'LOCALHOST:7777']) {
      expect(await status({ host }), host).toBe(200);
    }
    // Without a Host header (an in-process request), the URL's host is judged.
    expect(await status({})).toBe(200);
  });

  it('refuses a rebound DNS name, another port, and a missing port', async () => {
    expect(await status({ host: 'evil.example:7777' })).toBe(403);
    expect(await status({ host: 'localhost.evil.example:7777' })).toBe(403);
    expect(await status({ host: '127.0.0.1:8080' })).toBe(403);
    expect(await status({ host: 'localhost' })).toBe(403);
    expect(await status({ host: '127.0.0.1:7777@evil.example' })).toBe(403);
  });

  it('judges the port the connection arrived on when known', async () => {
    expect(await status({ host: '127.0.0.1:41234' }, OPTIONS, 41234)).toBe(200);
    expect(await status({ host: '127.0.0.1:7777' }, OPTIONS, 41234)).toBe(403);
  });

  it('judges every request of one step alike, however often the same headers come', async () => {
    const step = hostOrigin(OPTIONS);
    const judge = async (headers: Record<string, string>, localPort: number) => {
      const ctx = contextFor(new Request('http://127.0.0.1:7777/mcp', { headers }), { localPort });
      const { response, error } = await runStep(step, ctx);
      return error?.status ?? response?.status;
    };
    const seen: (number | undefined)[] = [];
    for (let round = 0; round < 2; round++) {
      seen.push(
        await judge({ host: '127.0.0.1:41234' }, 41234),
        await judge({ host: '127.0.0.1:41234' }, 41235),
        await judge({ host: '127.0.0.1:41234', origin: 'http://localhost:3000' }, 41234),
        await judge({ host: '127.0.0.1:41234', origin: 'https://evil.example' }, 41234),
      );
    }
    expect(seen).toEqual([200, 403, 200, 403, 200, 403, 200, 403]);
  });

  it('accepts listed hosts exactly', async () => {
    const options = { ...OPTIONS, allowedHosts: ['mcp.example.com', 'gw.example.com:8443'] };
    expect(await status({ host: 'mcp.example.com' }, options)).toBe(200);
    expect(await status({ host: 'MCP.example.com' }, options)).toBe(200);
    expect(await status({ host: 'gw.example.com:8443' }, options)).toBe(200);
    expect(await status({ host: 'gw.example.com' }, options)).toBe(403);
  });

  it('accepts no Origin, loopback origins and listed ones; refuses evil and null origins', async () => {
    const host = { host: 'localhost:7777' };
    expect(await status({ ...host, origin: 'http://localhost:3000' })).toBe(200);
    expect(await status({ ...host, origin: 'http://127.0.0.1:7777' })).toBe(200);
    expect(await status({ ...host, origin: 'https://evil.example' })).toBe(403);
    expect(await status({ ...host, origin: 'null' })).toBe(403);
    expect(await status({ ...host, origin: 'file://' })).toBe(403);
    const options = { ...OPTIONS, allowedOrigins: ['https://app.example.com'] };
    expect(await status({ ...host, origin: 'https://app.example.com' }, options)).toBe(200);
    expect(await status({ ...host, origin: 'https://app.example.com.evil.example' }, options)).toBe(403);
  });

  it('says which host was refused and how to allow it', async () => {
    const ctx = contextFor(new Request('http://127.0.0.1:7777/', { headers: { host: 'evil.example:7777' } }));
    const { error } = await runStep(hostOrigin(OPTIONS), ctx);
    expect(error?.message).toMatch(/"evil\.example:7777" is not allowed.*gateway\.allowedHosts/);
  });
});
