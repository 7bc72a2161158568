import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import {
  everythingBin,
  processesInGroup,
  type RunningHttpServer,
  startNodeHttpServer,
  stdioEntry,
} from '../helpers/servers.js';

/** Interop with the published reference server, @modelcontextprotocol/server-everything. */
describe('server-everything over stdio', () => {
  const logs: LogEntry[] = [];
  const elicitations: unknown[] = [];
  let conn: Connection;

  beforeAll(async () => {
    conn = new Connection({
      config: stdioEntry('everything', [everythingBin, 'stdio']),
      eraStore: new MemoryEraVerdictStore(),
      onLog: (e) => logs.push(e),
      elicitation: async (params) => {
        elicitations.push(params);
        return { action: 'accept', content: { name: 'Ada', check: true, email: 'ada@example.com' } };
      },
      sampling: async (params) => ({
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: `sampled ${params.messages.length} message(s)` },
      }),
    });
    await conn.connect();
  });

  afterAll(async () => {
    await conn.close();
  });

  it('negotiates the legacy era (the server is legacy-only) and reports server info', () => {
    expect(conn.state).toBe('connected');
    expect(conn.protocolVersion).toBe('2025-11-25');
    expect(conn.era).toBe('legacy');
    expect(conn.serverInfo?.name).toContain('everything');
    expect(conn.capabilities?.tools).toBeDefined();
  });

  it('captures stderr into the log sink', () => {
    expect(logs.some((l) => l.source === 'stderr' && l.text.length > 0)).toBe(true);
  });

  it('lists tools, resources (paginated by the server), templates and prompts', async () => {
    const tools = await conn.listTools();
    expect(tools.truncated).toBe(false);
    expect(tools.items.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'trigger-sampling-request']),
    );
    const resources = await conn.listResources();
    expect(resources.items.length).toBeGreaterThan(0);
    const templates = await conn.listResourceTemplates();
    expect(templates.items.length).toBeGreaterThan(0);
    const prompts = await conn.listPrompts();
    expect(prompts.items.length).toBeGreaterThan(0);
  });

  it('calls a text tool', async () => {
    const r = await conn.callTool('echo', { message: 'hello' });
    expect(r.kind).toBe('text');
    expect(r.text).toBe('Echo: hello');
    expect(r.isError).toBe(false);
  });

  it('returns validated structured content', async () => {
    const r = await conn.callTool('get-structured-content', { location: 'Chicago' });
    expect(r.kind).toBe('json');
    if (r.kind !== 'json') return;
    expect(r.schema.status).toBe('valid');
    expect(r.json).toHaveProperty('temperature');
  });

  it('decodes image content', async () => {
    const r = await conn.callTool('get-tiny-image', {});
    expect(r.kind).toBe('media');
    const image = r.media.find((m) => m.type === 'image');
    expect(image?.mimeType).toBe('image/png');
    expect(Buffer.from(image!.data).subarray(1, 4).toString()).toBe('PNG');
  });

  it('keeps resource links as links', async () => {
    const r = await conn.callTool('get-resource-links', { count: 2 });
    expect(r.links).toHaveLength(2);
    expect(r.links[0]!.uri).toMatch(/^demo:\/\//);
  });

  it('reports progress and resets the timeout on it', async () => {
    const seen: number[] = [];
    const r = await conn.callTool(
      'trigger-long-running-operation',
      { duration: 1.2, steps: 4 },
      { onProgress: (p) => seen.push(p.progress), timeoutMs: 700 },
    );
    // 1.2 s of work under a 700 ms budget: only progress resets kept it alive. The last
    // notification may race the response, so at least the first three must arrive in order.
    expect(r.isError).toBe(false);
    expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('times out with a typed error when no progress arrives in time', async () => {
    const error = await conn
      .callTool('trigger-long-running-operation', { duration: 3, steps: 1 }, { timeoutMs: 300 })
      .catch((e) => e);
    expect(isSwitchboardError(error, 'REQUEST_TIMEOUT')).toBe(true);
    // The connection survives a timed-out request.
    expect((await conn.callTool('echo', { message: 'still here' })).text).toBe('Echo: still here');
  });

  it('cancels a call through an AbortSignal', async () => {
    const controller = new AbortController();
    const pending = conn.callTool(
      'trigger-long-running-operation',
      { duration: 5, steps: 5 },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 100);
    const error = await pending.catch((e) => e);
    expect(isSwitchboardError(error, 'REQUEST_CANCELLED')).toBe(true);
  });

  it('answers elicitation through the handler and applies schema defaults (SEP-1034)', async () => {
    const r = await conn.callTool('trigger-elicitation-request', {});
    expect(elicitations).toHaveLength(1);
    expect(r.text).toContain('Ada');
    // firstLine was not answered: its default is filled in on accept.
    expect(r.text).toContain('It was a dark and stormy night.');
  });

  it('answers sampling through the handler', async () => {
    const r = await conn.callTool('trigger-sampling-request', { prompt: 'hi', maxTokens: 10 });
    expect(r.text).toContain('sampled 1 message(s)');
  });

  it('offers no roots by default, never the working directory', async () => {
    const r = await conn.callTool('get-roots-list', {});
    expect(r.isError).toBe(false);
    expect(r.text).not.toContain(`file://${process.cwd()}`);
  });

  it('reads resources and gets prompts', async () => {
    const resources = await conn.listResources();
    const first = resources.items[0]!;
    const read = await conn.readResource(first.uri);
    expect(read.contents[0]!.uri).toBe(first.uri);
    const prompt = await conn.getPrompt('simple-prompt', {});
    expect(prompt.messages.length).toBeGreaterThan(0);
  });

  it('surfaces JSON-RPC errors as typed errors with the code', async () => {
    const error = await conn.getPrompt('no-such-prompt', {}).catch((e) => e);
    expect(isSwitchboardError(error, 'UPSTREAM_ERROR')).toBe(true);
    expect(typeof error.details.rpcCode).toBe('number');
  });

  it('routes server log notifications to the log sink', async () => {
    const before = logs.filter((l) => l.source === 'server').length;
    await conn.callTool('toggle-simulated-logging', {});
    await waitFor(() => logs.filter((l) => l.source === 'server').length > before, 10_000);
    await conn.callTool('toggle-simulated-logging', {});
    const last = logs.filter((l) => l.source === 'server').at(-1)!;
    expect(last.level).toMatch(/^(debug|info|notice|warning|error|critical|alert|emergency)$/);
    expect(last.text.length).toBeGreaterThan(0);
  });

  it('leaves no process behind on close', async () => {
    const other = new Connection({
      config: stdioEntry('everything2', [everythingBin, 'stdio']),
      eraStore: new MemoryEraVerdictStore(),
    });
    await other.connect();
    const pid = (other.activeTransport as unknown as { pid: number }).pid;
    expect((await processesInGroup(pid)).length).toBeGreaterThan(0);
    await other.close();
    expect(await processesInGroup(pid)).toEqual([]);
  });
});

describe('server-everything over Streamable HTTP', () => {
  let server: RunningHttpServer;

  beforeAll(async () => {
    server = await startNodeHttpServer(everythingBin, ['streamableHttp'], '/mcp');
  });

  afterAll(async () => {
    await server.close();
  });

  it('connects with a legacy session, calls tools and closes', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({ name: 'everything-http', url: server.url }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
    expect(conn.era).toBe('legacy');
    expect((conn.activeTransport as { sessionId?: string }).sessionId).toBeTruthy();
    const r = await conn.callTool('get-sum', { a: 2, b: 3 });
    expect(r.text).toContain('5');
    const seen: number[] = [];
    await conn.callTool(
      'trigger-long-running-operation',
      { duration: 0.6, steps: 3 },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(seen.slice(0, 2)).toEqual([1, 2]);
    await conn.close();
    expect(conn.state).toBe('closed');
  });
});

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
