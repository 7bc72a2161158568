import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { SseReader } from './sse-events.js';

/**
 * Resumable streams through a real gateway on 127.0.0.1 (MCP 2025-11-25, "Resumability and
 * Redelivery"): a client's GET stream drops, the catalog changes meanwhile, and the client
 * comes back with `Last-Event-ID` and receives the list-changed notification it missed.
 */
let dir: string;
let host: Host;
let gateway: HttpGateway;
const silent = { access: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-resume-'));
  host = await Host.create({
    dataDir: dir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] })],
  });
  await catalogHas(host, 'mcp__kitchen__add_tool');
  gateway = await startHttpGateway(host, resolveGateway({ port: 0 }), { log: silent });
});

afterAll(async () => {
  await gateway?.close();
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A bare 2025-11-25 client over fetch, so the test sees event ids and sends Last-Event-ID itself. */
class RawSession {
  id = '';
  private next = 1;

  async initialize(): Promise<void> {
    const response = await this.post({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    this.id = response.headers.get('mcp-session-id')!;
    await new SseReader(response.body).nextMessage();
    const initialized = await this.post({ method: 'notifications/initialized' }, false);
    expect(initialized.status).toBe(202);
  }

  /** A tool's answer, which the gateway sends as JSON or on an SSE stream, as it chooses. */
  async call(name: string): Promise<Record<string, unknown>> {
    const response = await this.post({ method: 'tools/call', params: { name, arguments: {} } });
    if (response.headers.get('content-type') === 'application/json')
      return (await response.json()) as Record<string, unknown>;
    return (await new SseReader(response.body).nextMessage()).message;
  }

  listen(lastEventId?: string): Promise<Response> {
    return fetch(gateway.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': this.id,
        'mcp-protocol-version': '2025-11-25',
        ...(lastEventId !== undefined && { 'last-event-id': lastEventId }),
      },
    });
  }

  private post(message: Record<string, unknown>, request = true): Promise<Response> {
    return fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.id && { 'mcp-session-id': this.id, 'mcp-protocol-version': '2025-11-25' }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...(request && { id: this.next++ }), ...message }),
    });
  }
}

/** Reads until a `tools/list_changed` notification; returns it and the ids of everything read. */
async function untilToolsChanged(reader: SseReader): Promise<{ id: string; ids: string[] }> {
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { id, message } = await reader.nextMessage();
    expect(id).toBeDefined();
    ids.push(id!);
    if (message.method === 'notifications/tools/list_changed') return { id: id!, ids };
  }
  throw new Error('no tools/list_changed within 20 messages');
}

const seq = (id: string) => Number(id.slice(id.lastIndexOf('.') + 1));

describe('resumable streams through the gateway', () => {
  it('replays the notification a dropped GET stream missed', async () => {
    const session = new RawSession();
    await session.initialize();
    const opened = await session.listen();
    expect(opened.status).toBe(200);
    const first = new SseReader(opened.body);

    expect(await session.call('mcp__kitchen__add_tool')).toMatchObject({
      result: { content: [{ text: /^dynamic_/ }] },
    });
    const before = await untilToolsChanged(first);
    await first.cancel(); // the connection drops

    const added = await session.call('mcp__kitchen__add_tool');
    const name = (added.result as { content: { text: string }[] }).content[0]!.text;
    expect(name).toMatch(/^dynamic_\d+$/);
    await catalogHas(host, `mcp__kitchen__${name}`); // the change is published: its notification sent

    const resumed = await session.listen(before.id);
    expect(resumed.status).toBe(200);
    const missed = await untilToolsChanged(new SseReader(resumed.body));
    for (const id of missed.ids) {
      expect(before.ids).not.toContain(id);
      expect(seq(id)).toBeGreaterThan(seq(before.id));
    }
  });

  it('refuses a Last-Event-ID from another session', async () => {
    const a = new RawSession();
    await a.initialize();
    const stream = new SseReader((await a.listen()).body);
    await a.call('mcp__kitchen__add_tool');
    const { id } = await untilToolsChanged(stream);
    await stream.cancel();
    const b = new RawSession();
    await b.initialize();
    const stolen = await b.listen(id);
    expect(stolen.status).toBe(400);
    await stolen.body?.cancel();
  });
});
