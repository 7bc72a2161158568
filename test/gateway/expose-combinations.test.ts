import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGateway, resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { startHttpGateway } from '../../src/gateway/http-gateway.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import { serveGatewayStdio } from '../../src/gateway/stdio/serve-stdio.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { LineTransport } from './line-transport.js';
import { quietLog } from './modern-client.js';

/**
 * Every combination of `gateway.expose` — each of tools, resources and prompts absent (the
 * default, everything), empty (nothing) or a glob that matches nothing — served over every
 * way in: a 2025-11-25 session over Streamable HTTP, stateless 2026-07-28 requests, the
 * 2024-11-05 HTTP+SSE transport, and stdio in both eras. Each must connect (never a 500 or a
 * refused handshake), advertise tools and prompts exactly when their list is not empty, answer
 * a kind left out with -32601 (method not found), and serve nothing an empty list excludes.
 * Management tools are on, so their own path through `expose` is covered too.
 */
type Choice = 'absent' | 'empty' | 'none-match';
const CHOICES: readonly Choice[] = ['absent', 'empty', 'none-match'];
const KINDS = ['tools', 'resources', 'prompts'] as const;
type Kind = (typeof KINDS)[number];
type Combination = Readonly<Record<Kind, Choice>>;

const COMBINATIONS: Combination[] = CHOICES.flatMap((tools) =>
  CHOICES.flatMap((resources) => CHOICES.map((prompts) => ({ tools, resources, prompts }))),
);

const globs = (choice: Choice): string[] | undefined =>
  choice === 'absent' ? undefined : choice === 'empty' ? [] : ['nothing-here/*'];

function exposeSection(c: Combination): Record<string, string[]> {
  const section: Record<string, string[]> = {};
  for (const kind of KINDS) {
    const value = globs(c[kind]);
    if (value) section[kind] = value;
  }
  return section;
}

/** A client of one era and transport, reduced to what the table asks of it. */
interface Probe {
  capabilities(): Record<string, unknown> | undefined;
  /** The result of `method`, or `{ error: code }` when it failed. */
  ask(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function asked(run: () => Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    return (await run()) as Record<string, unknown>;
  } catch (error) {
    return { error: rpcCode(error) };
  }
}

/**
 * The JSON-RPC error code a request failed with. A 2026-07-28 server answers -32601 with HTTP
 * 404 (as the SDK's handler does), which the SDK's client reports as an HTTP error with the
 * body as text: the code is read from that body.
 */
function rpcCode(error: unknown): unknown {
  const { code, data } = error as { code?: unknown; data?: { text?: unknown } };
  if (typeof code === 'number') return code;
  if (typeof data?.text === 'string') {
    const body = JSON.parse(data.text) as { error?: { code?: unknown } };
    if (body.error?.code !== undefined) return body.error.code;
  }
  return String(error);
}

const anyResult = {
  '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) },
};

async function sdkProbe(transport: Transport, era: 'legacy' | 'modern'): Promise<Probe> {
  const client = new Client(
    { name: 'expose-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  await client.connect(transport);
  return {
    capabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    ask: (method, params = {}) =>
      asked(() => client.request({ method, params } as never, anyResult as never)),
    close: () => client.close(),
  };
}

async function sseProbe(url: string): Promise<Probe> {
  const client = new ClientV1({ name: 'expose-test', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${url}/sse`)));
  const { z } = await import('zod');
  return {
    capabilities: () => client.getServerCapabilities() as Record<string, unknown> | undefined,
    ask: (method, params = {}) =>
      asked(() => client.request({ method, params } as never, z.looseObject({}) as never)),
    close: () => client.close(),
  };
}

/** A client transport over a pair of streams: the stdio gateway's input and output, in process. */

let dir: string;
let host: Host;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-expose-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] })],
  });
  await catalogHas(host, 'mcp__kitchen__echo');
}, 60_000);

afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

const WAYS = ['2025 session', '2026-07-28', 'legacy SSE', 'stdio 2025', 'stdio 2026-07-28'] as const;

describe('gateway.expose', () => {
  for (const combination of COMBINATIONS) {
    const name = KINDS.map((k) => `${k} ${combination[k]}`).join(', ');
    it(`${name}: every way in connects and serves what is exposed`, async () => {
      const section = exposeSection(combination);
      const settings = resolveGateway(
        parseGateway({ port: 0, legacySse: true, management: true, expose: section }, 'test.json'),
      );
      const gateway = await startHttpGateway(host, settings, { log: quietLog });
      const stdio: { close(): Promise<void> }[] = [];
      const stdioProbe = async (era: 'legacy' | 'modern') => {
        const input = new PassThrough();
        const output = new PassThrough();
        stdio.push(
          serveGatewayStdio(host, {
            input,
            output,
            naming: settings.names,
            expose: settings.expose,
            consent: settings.consent,
            limits: settings.limits,
            idempotency: new IdempotencyCache(60_000),
            management: true,
          }),
        );
        return sdkProbe(new LineTransport(input, output), era);
      };
      try {
        for (const way of WAYS) {
          const probe =
            way === '2025 session'
              ? await sdkProbe(new StreamableHTTPClientTransport(new URL(gateway.url)), 'legacy')
              : way === '2026-07-28'
                ? await sdkProbe(new StreamableHTTPClientTransport(new URL(gateway.url)), 'modern')
                : way === 'legacy SSE'
                  ? await sseProbe(gateway.url)
                  : await stdioProbe(way === 'stdio 2025' ? 'legacy' : 'modern');
          try {
            await expectServed(probe, combination, way);
          } finally {
            await probe.close();
          }
        }
      } finally {
        for (const s of stdio) await s.close();
        await gateway.close();
      }
    }, 60_000);
  }
});

async function expectServed(probe: Probe, c: Combination, way: string): Promise<void> {
  const at = `${way}, expose ${JSON.stringify(exposeSection(c))}`;
  const capabilities = probe.capabilities() ?? {};
  // Absent means the default, everything; a list that matches nothing still offers the kind.
  expect(capabilities.tools !== undefined, `${at}: tools capability`).toBe(c.tools !== 'empty');
  expect(capabilities.prompts !== undefined, `${at}: prompts capability`).toBe(c.prompts !== 'empty');
  expect(capabilities.resources, `${at}: resources capability`).toBeDefined();

  const tools = await probe.ask('tools/list');
  const call = await probe.ask('tools/call', { name: 'mcp__kitchen__echo', arguments: { text: 'hi' } });
  if (c.tools === 'empty') {
    expect(tools, `${at}: tools/list`).toEqual({ error: -32601 });
    expect(call, `${at}: tools/call`).toEqual({ error: -32601 });
  } else {
    const names = (tools.tools as { name: string }[]).map((t) => t.name);
    expect(names.includes('mcp__kitchen__echo'), `${at}: tools/list`).toBe(c.tools === 'absent');
    // Management tools go through expose like any other: the default lets them through.
    expect(names.includes('mcp__switchboard__list_mcp'), `${at}: management`).toBe(c.tools === 'absent');
    if (c.tools === 'none-match') expect(call, `${at}: tools/call`).toEqual({ error: -32602 });
    else expect(call.isError, `${at}: tools/call`).not.toBe(true);
  }

  const prompts = await probe.ask('prompts/list');
  if (c.prompts === 'empty') expect(prompts, `${at}: prompts/list`).toEqual({ error: -32601 });
  else expect((prompts.prompts as unknown[]).length > 0, `${at}: prompts/list`).toBe(c.prompts === 'absent');

  const resources = await probe.ask('resources/list');
  const uris = (resources.resources as { uri: string }[]).map((r) => r.uri);
  // The gateway's own resources are always there; upstream ones only when exposed.
  expect(uris, `${at}: resources/list`).toContain('switchboard://servers');
  expect(
    uris.some((u) => !u.startsWith('switchboard://servers')),
    `${at}: upstream resources`,
  ).toBe(c.resources === 'absent');
  const templates = await probe.ask('resources/templates/list');
  expect(
    (templates.resourceTemplates as { uriTemplate: string }[]).some(
      (t) => !t.uriTemplate.startsWith('switchboard://servers'),
    ),
    `${at}: upstream templates`,
  ).toBe(c.resources === 'absent');
}
