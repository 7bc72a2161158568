import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry, ServerEvent } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import type { ElicitationParams } from '../../src/client/server-requests.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../../src/core/server-config.js';
import { startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';
import { kitchenSinkBin } from '../fixtures/paths.js';

/**
 * Every Connection feature against the kitchen-sink fixture: over stdio and Streamable HTTP,
 * in the legacy (2025-11-25) and modern (2026-07-28) eras.
 */
const BULK = 250;
const matrix = [
  { transport: 'stdio', era: 'legacy' },
  { transport: 'stdio', era: 'modern' },
  { transport: 'http', era: 'legacy' },
  { transport: 'http', era: 'modern' },
] as const;

describe.each(matrix)('kitchen sink over $transport, $era era', ({ transport, era }) => {
  const logs: LogEntry[] = [];
  const events: ServerEvent[] = [];
  const elicitations: ElicitationParams[] = [];
  let elicitationDelayMs = 0;
  let conn: Connection;
  let closeServer: () => Promise<void> = async () => {};

  async function open(
    extra: Partial<RawServerEntry> = {},
    options: { listPageCap?: number } = {},
  ): Promise<Connection> {
    let entry: RawServerEntry;
    if (transport === 'stdio') {
      entry = { name: 'kitchen', command: process.execPath, args: [kitchenSinkBin, '--bulk', String(BULK)] };
    } else {
      const server = await startKitchenSinkHttp({ bulkTools: BULK });
      const previous = closeServer;
      closeServer = async () => {
        await previous();
        await server.close();
      };
      entry = { name: 'kitchen', url: server.url };
    }
    const c = new Connection({
      config: normalizeServerEntry({
        ...entry,
        protocol: era,
        roots: [{ uri: 'file:///srv/project', name: 'project' }],
        ...extra,
      }),
      eraStore: new MemoryEraVerdictStore(),
      onLog: (e) => logs.push(e),
      onEvent: (e) => events.push(e),
      logLevel: 'debug',
      ...options,
      elicitation: async (params) => {
        elicitations.push(params);
        if (elicitationDelayMs > 0) await new Promise((r) => setTimeout(r, elicitationDelayMs));
        return params.mode === 'url'
          ? { action: 'accept' }
          : { action: 'accept', content: { confirm: true } };
      },
      sampling: async (params) => {
        const first = params.messages[0]?.content;
        const text = first && !Array.isArray(first) && first.type === 'text' ? first.text : '?';
        return { model: 'fake', role: 'assistant', content: { type: 'text', text: `model says: ${text}` } };
      },
    });
    await c.connect();
    return c;
  }

  beforeAll(async () => {
    conn = await open();
  });

  afterAll(async () => {
    await conn.close();
    await closeServer();
  });

  it('negotiates the requested era', () => {
    expect(conn.era).toBe(era);
    expect(conn.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(conn.serverInfo?.name).toBe('kitchen-sink');
    expect(conn.instructions).toBe('Kitchen sink fixture server');
  });

  it('follows every page of a paginated tool list (20 per page)', async () => {
    const tools = await conn.listTools();
    expect(tools.truncated).toBe(false);
    const bulk = tools.items.filter((t) => t.name.startsWith('bulk_'));
    expect(bulk).toHaveLength(BULK);
    expect(new Set(tools.items.map((t) => t.name)).size).toBe(tools.items.length);
  });

  it('stops at the page cap and reports the list as truncated', async () => {
    const capped = await open({}, { listPageCap: 3 });
    try {
      const tools = await capped.listTools();
      expect(tools.truncated).toBe(true);
      expect(tools.items).toHaveLength(60);
      expect(logs.some((l) => l.text.includes('stopped after 3 pages'))).toBe(true);
    } finally {
      await capped.close();
    }
  });

  it('normalizes every content type', async () => {
    const text = await conn.callTool('echo', { text: 'hi' });
    expect([text.kind, text.text]).toEqual(['text', 'hi']);

    const json = await conn.callTool('add', { a: 2, b: 40 });
    expect(json.kind === 'json' && [json.json, json.schema]).toEqual([{ sum: 42 }, { status: 'valid' }]);

    const bad = await conn.callTool('bad_structured', {});
    expect(bad.kind).toBe('json');
    expect(bad.kind === 'json' && bad.schema.status).toBe('invalid');

    const image = await conn.callTool('image', {});
    expect(image.kind).toBe('media');
    expect(image.media[0]?.mimeType).toBe('image/png');
    expect(Buffer.from(image.media[0]!.data).subarray(1, 4).toString()).toBe('PNG');
    expect(image.text).toBe('an image');

    const audio = await conn.callTool('audio', {});
    expect(audio.media[0]?.type).toBe('audio');
    expect(Buffer.from(audio.media[0]!.data).subarray(0, 4).toString()).toBe('RIFF');

    const embedded = await conn.callTool('embedded', {});
    expect(Buffer.from(embedded.media[0]!.data).toString()).toBe('hello blob');
    expect(embedded.media[0]!.uri).toBe('kitchen://blob');
    expect(embedded.text).toContain('hello text');

    const link = await conn.callTool('link', {});
    expect(link.links).toEqual([expect.objectContaining({ uri: 'kitchen://text', name: 'text' })]);

    const failed = await conn.callTool('fail', {});
    expect([failed.isError, failed.text]).toEqual([true, 'it failed']);
  });

  it('turns a JSON-RPC error into a typed error with its code', async () => {
    const error = await conn.callTool('throw', {}).catch((e) => e);
    expect(isSwitchboardError(error, 'UPSTREAM_ERROR')).toBe(true);
    expect(error.message).toContain('thrown on purpose');
    expect(typeof error.details.rpcCode).toBe('number');
  });

  it('delivers every progress notification, in order', async () => {
    const seen: number[] = [];
    const r = await conn.callTool(
      'progress',
      { steps: 4, delayMs: 5 },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(r.text).toBe('done');
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('keeps a call alive past its timeout while progress keeps coming', async () => {
    const r = await conn.callTool('progress', { steps: 6, delayMs: 100 }, { timeoutMs: 400 });
    expect(r.text).toBe('done');
  });

  it('times out a silent call and cancels it on the server', async () => {
    const before = Number((await conn.callTool('cancelled_count', {})).text);
    const error = await conn.callTool('slow', { ms: 20_000 }, { timeoutMs: 300 }).catch((e) => e);
    expect(isSwitchboardError(error, 'REQUEST_TIMEOUT')).toBe(true);
    await expectEventually(async () => Number((await conn.callTool('cancelled_count', {})).text) > before);
  });

  it('cancels through an AbortSignal, and the server sees the cancellation', async () => {
    const before = Number((await conn.callTool('cancelled_count', {})).text);
    const controller = new AbortController();
    const error = await conn
      .callTool('slow', { ms: 20_000 }, { signal: controller.signal, onProgress: () => controller.abort() })
      .catch((e) => e);
    expect(isSwitchboardError(error, 'REQUEST_CANCELLED')).toBe(true);
    await expectEventually(async () => Number((await conn.callTool('cancelled_count', {})).text) > before);
  });

  it('answers a form elicitation and fills in the schema defaults (SEP-1034)', async () => {
    const r = await conn.callTool('confirm', {});
    expect(JSON.parse(r.text)).toEqual({
      action: 'accept',
      content: { confirm: true, name: 'anonymous', color: 'green' },
    });
    expect(elicitations.at(-1)).toMatchObject({ message: 'Please confirm' });
  });

  it('does not time out while the user answers an elicitation', async () => {
    elicitationDelayMs = 600;
    try {
      const r = await conn.callTool('confirm', {}, { timeoutMs: 250 });
      expect(JSON.parse(r.text).action).toBe('accept');
    } finally {
      elicitationDelayMs = 0;
    }
  });

  it('answers a URL-mode elicitation', async () => {
    const r = await conn.callTool('open_url', {});
    expect(r.text).toBe('accept');
    expect(elicitations.at(-1)).toMatchObject({ mode: 'url', url: 'https://example.com/verify' });
  });

  it('answers sampling through the handler', async () => {
    expect((await conn.callTool('sample', { prompt: 'two plus two' })).text).toBe('model says: two plus two');
  });

  it('answers roots/list with the configured roots', async () => {
    expect(JSON.parse((await conn.callTool('roots', {})).text)).toEqual([
      { uri: 'file:///srv/project', name: 'project' },
    ]);
  });

  it('routes server log messages to the log sink', async () => {
    await conn.callTool('log', { level: 'warning', message: 'careful now' });
    await expectEventually(async () => logs.some((l) => l.source === 'server' && l.text === 'careful now'));
    expect(logs.find((l) => l.text === 'careful now')).toMatchObject({ level: 'warning', logger: 'kitchen' });
  });

  it('routes other server notifications to the event sink', async () => {
    await conn.callTool('notify', { method: 'event/new_email', params: { from: 'ada@example.com' } });
    await expectEventually(async () => events.some((e) => e.method === 'event/new_email'));
    expect(events.find((e) => e.method === 'event/new_email')?.params).toEqual({ from: 'ada@example.com' });
  });

  it('refreshes the tool list on list_changed and emits an event', async () => {
    const before = (await conn.listTools()).items.length;
    const changed = new Promise<[string, { items: readonly { name: string }[] } | undefined]>((resolve) =>
      conn.once('listChanged', (kind, list) =>
        resolve([kind, list as { items: { name: string }[] } | undefined]),
      ),
    );
    const added = (await conn.callTool('add_tool', {})).text;
    const [kind, fresh] = await withTimeout(changed, 5000);
    expect(kind).toBe('tools');
    // The event carries the list fetched again, and the cache serves the same one.
    expect(fresh?.items.map((t) => t.name)).toContain(added);
    const after = await conn.listTools();
    expect(after).toBe(fresh);
    expect(after.items.length).toBe(before + 1);
    expect(after.items.map((t) => t.name)).toContain(added);
  });

  it('lists and reads resources and templates, and gets prompts', async () => {
    const resources = (await conn.listResources()).items.map((r) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(['kitchen://text', 'kitchen://blob']));
    expect((await conn.listResourceTemplates()).items.map((t) => t.uriTemplate)).toContain(
      'kitchen://items/{id}',
    );
    const text = await conn.readResource('kitchen://text');
    expect(text.contents[0]).toMatchObject({ uri: 'kitchen://text', text: 'hello text' });
    const item = await conn.readResource('kitchen://items/7');
    expect(item.contents[0]).toMatchObject({ text: 'item 7' });
    const prompt = await conn.getPrompt('greet', { name: 'Ada' });
    expect(prompt.messages[0]).toMatchObject({
      role: 'user',
      content: { type: 'text', text: 'Hello, Ada!' },
    });
  });

  it('answers ping', async () => {
    await expect(conn.ping()).resolves.toBeUndefined();
  });
});

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met within the time limit');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no event within ${ms} ms`)), ms);
    }),
  ]);
}

describe.each(['legacy', 'modern'] as const)('without a sampling handler (%s era)', (era) => {
  it('does not declare sampling, and a server that asks gets a refusal', async () => {
    const conn = new Connection({
      config: normalizeServerEntry({
        name: 'no-sampling',
        command: process.execPath,
        args: [kitchenSinkBin],
        protocol: era,
      }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
    try {
      const outcome = await conn.callTool('sample', { prompt: 'hi' }).then(
        (r) => (r.isError ? `error result: ${r.text}` : `ok: ${r.text}`),
        (e: Error) => `error: ${e.message}`,
      );
      expect(outcome).toMatch(/^error/);
      expect(outcome).not.toContain('model says');
      // Elicitation without a handler is declined by default.
      expect(JSON.parse((await conn.callTool('confirm', {})).text)).toEqual({ action: 'decline' });
    } finally {
      await conn.close();
    }
  });
});
