import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiCallResult,
  ApiContent,
  ApiInboxItem,
  ApiPrompt,
  ApiResource,
  ApiResourceTemplate,
  ApiTool,
} from '../../../src/gateway/api/api-types.js';
import { eventually } from '../../helpers/wait.js';
import { type ApiUnderTest, kitchen, nextEvent, startApiUnderTest } from './api-harness.js';

/**
 * Tools, resources, prompts and the inbox over HTTP against a real host and the kitchen-sink
 * fixture: calls with text, structured and media results, approvals and elicitations answered
 * through `/api/inbox` while a dashboard listens on `/api/stream`.
 */
let under: ApiUnderTest;
const SESSION = 'dashboard:local';
const slowCalls: string[] = [];

beforeAll(async () => {
  under = await startApiUnderTest({
    servers: [kitchen('kitchen')],
    ready: ['mcp__kitchen__echo'],
    host: { governance: { mode: 'full-auto' } },
  });
  under.host.useHooks({ before: (call) => void (call.tool === 'slow' && slowCalls.push(call.name)) });
}, 60_000);

afterAll(async () => {
  await under?.close();
});

afterEach(() => {
  under.host.governor.setMode(SESSION, 'full-auto');
});

const call = (tool: string, args: Record<string, unknown> = {}) =>
  under.api.request(`/api/tools/mcp__kitchen__${tool}/call`, { body: { arguments: args } });

describe('tools', () => {
  it('lists, searches and shows tools', async () => {
    const { tools } = await under.api.json<{ tools: ApiTool[] }>('/api/tools?server=kitchen');
    const echo = tools.find((t) => t.tool === 'echo');
    expect(echo).toMatchObject({
      name: 'mcp__kitchen__echo',
      server: 'kitchen',
      description: 'Returns the given text unchanged.',
      inputSchema: { type: 'object', properties: { text: expect.any(Object) } },
      annotations: { readOnlyHint: true },
    });
    const found = await under.api.json<{ tools: ApiTool[] }>('/api/tools?q=PNG');
    expect(found.tools.map((t) => t.tool)).toEqual(['image']);
    expect((await under.api.json<ApiTool>('/api/tools/mcp__kitchen__add')).outputSchema).toBeDefined();
    expect((await under.api.error('/api/tools/mcp__kitchen__nope', {}, 404)).message).toContain(
      'mcp__kitchen__nope',
    );
    expect((await under.api.error('/api/tools?server=nope', {}, 404)).code).toBe('NOT_FOUND');
    const badQuery = await under.api.error('/api/tools?serverr=kitchen', {}, 400);
    expect(badQuery.message).toContain('"serverr"');
  });

  it('calls a tool: text, structured content, tool errors, and the time taken', async () => {
    const added = (await (await call('add', { a: 2, b: 3 })).json()) as ApiCallResult;
    expect(added).toMatchObject({ isError: false, structuredContent: { sum: 5 } });
    expect(added.content).toEqual([{ type: 'text', text: '{"sum":5}' }]);
    expect(added.ms).toBeGreaterThan(0);
    const failed = (await (await call('fail')).json()) as ApiCallResult;
    expect(failed.isError).toBe(true);
    const badArgs = await under.api.error(
      '/api/tools/mcp__kitchen__echo/call',
      { body: { arguments: 'hi' } },
      400,
    );
    expect(badArgs).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'arguments' } });
  });

  it('saves media of a result and serves it under /media', async () => {
    const result = (await (await call('image')).json()) as ApiCallResult;
    const [image, text] = result.content;
    expect(text).toEqual({ type: 'text', text: 'an image' });
    expect(image).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      url: expect.stringMatching(/^\/media\/[^/]+\.png$/),
    });
    const path = (image as { url: string }).url;
    // Media is the machine owner's too: without the local token, 401; with its cookie, served.
    const refused = await fetch(`${under.api.base}${path}`);
    expect(refused.status).toBe(401);
    const media = await under.api.request(path);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toContain('image/png');
    const bytes = new Uint8Array(await media.arrayBuffer());
    expect(bytes.byteLength).toBe((image as { bytes: number }).bytes);
    expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
  });

  it('cancels the call when the request is aborted', async () => {
    const controller = new AbortController();
    const pending = under.api
      .request('/api/tools/mcp__kitchen__slow/call', {
        body: { arguments: { ms: 60_000 } },
        signal: controller.signal,
      })
      .catch((error: unknown) => error);
    await eventually(
      () => slowCalls.length,
      (n) => n > 0,
      { what: 'started the slow call' },
    );
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    const audited = await eventually(
      () => under.host.audit({ action: 'tool_call', actor: SESSION }),
      (page) => page.entries.some((e) => (e.details as { tool?: string }).tool === 'slow'),
      { what: 'audited the cancelled call' },
    );
    const slow = audited.entries.find((e) => (e.details as { tool?: string }).tool === 'slow');
    expect(slow?.outcome).toBe('error');
  });
});

describe('approvals and elicitations through the inbox', () => {
  it('declines a call policy asks about at once when no dashboard listens', async () => {
    under.host.governor.setMode(SESSION, 'auto-edit');
    const refused = await under.api.error(
      '/api/tools/mcp__kitchen__add/call',
      { body: { arguments: { a: 1, b: 1 } } },
      403,
    );
    expect(refused.code).toBe('APPROVAL_DECLINED');
    expect(refused.message).toContain('no approver is attached');
  });

  it('lets the dashboard approve a call while it listens on /api/stream', async () => {
    under.host.governor.setMode(SESSION, 'auto-edit');
    const stream = await under.api.stream('/api/stream');
    try {
      await nextEvent(stream, 'inbox');
      const pending = call('add', { a: 20, b: 22 });
      const { data } = await nextEvent<{ items: ApiInboxItem[] }>(stream, 'inbox', (d) => d.items.length > 0);
      const item = data.items[0]!;
      expect(item).toMatchObject({ kind: 'approval', server: 'kitchen', tool: 'add', session: SESSION });
      expect(item.preview).toContain('20');
      expect(Date.parse(item.deadline)).toBeGreaterThan(Date.parse(item.createdAt));
      expect((await under.api.json<{ items: ApiInboxItem[] }>('/api/inbox')).items.map((i) => i.id)).toEqual([
        item.id,
      ]);
      const answer = await under.api.json(`/api/inbox/${item.id}`, { body: { action: 'accept' } });
      expect(answer).toEqual({ id: item.id, action: 'accept', always: false });
      const result = (await (await pending).json()) as ApiCallResult;
      expect(result.structuredContent).toEqual({ sum: 42 });
      await nextEvent<{ items: ApiInboxItem[] }>(stream, 'inbox', (d) => d.items.length === 0);
      // A second answer changed nothing, and is told so.
      const late = await under.api.error(`/api/inbox/${item.id}`, { body: { action: 'accept' } }, 409);
      expect(late.code).toBe('ALREADY_ANSWERED');
    } finally {
      await stream.cancel();
    }
  });

  it('lets an approval wait past the request timeout, up to its own deadline', async () => {
    under.host.governor.setMode(SESSION, 'auto-edit');
    const quick = await under.gatewayWith({ limits: { requestTimeoutMs: 1000 } });
    const stream = await quick.stream('/api/stream');
    try {
      await nextEvent(stream, 'inbox');
      const pending = quick.request('/api/tools/mcp__kitchen__add/call', {
        body: { arguments: { a: 2, b: 3 } },
      });
      const { data } = await nextEvent<{ items: ApiInboxItem[] }>(stream, 'inbox', (d) => d.items.length > 0);
      // The person takes longer than the gateway's 1 s request timeout to answer.
      await new Promise((resolve) => setTimeout(resolve, 1300));
      await quick.json(`/api/inbox/${data.items[0]!.id}`, { body: { action: 'accept' } });
      const response = await pending;
      expect(response.status).toBe(200);
      expect(((await response.json()) as ApiCallResult).structuredContent).toEqual({ sum: 5 });
      // A call with no person to wait for still ends at the timeout.
      under.host.governor.setMode(SESSION, 'full-auto');
      const slow = await quick.request('/api/tools/mcp__kitchen__slow/call', {
        body: { arguments: { ms: 5000 } },
      });
      expect(slow.status).toBe(504);
    } finally {
      await stream.cancel();
      await quick.close();
    }
  });

  it('answers an elicitation, checking the form first', async () => {
    const stream = await under.api.stream('/api/stream');
    try {
      const pending = call('confirm');
      const { data } = await nextEvent<{ items: ApiInboxItem[] }>(stream, 'inbox', (d) => d.items.length > 0);
      const item = data.items[0]!;
      expect(item).toMatchObject({ kind: 'elicitation', mode: 'form', preview: 'Please confirm' });
      expect(Object.keys(item.requestedSchema?.properties as object)).toEqual(['confirm', 'name', 'color']);
      const wrong = await under.api.error(
        `/api/inbox/${item.id}`,
        { body: { action: 'accept', content: { color: 'blue' } } },
        400,
      );
      expect(wrong.code).toBe('INVALID_ARGUMENT');
      const content = { confirm: true, name: 'Ada', color: 'red' };
      await under.api.json(`/api/inbox/${item.id}`, { body: { action: 'accept', content } });
      const result = (await (await pending).json()) as ApiCallResult;
      expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ action: 'accept', content });
    } finally {
      await stream.cancel();
    }
  });
});

describe('resources and prompts', () => {
  it('lists resources and templates, and reads text, blobs and template instances', async () => {
    const listed = await under.api.json<{ resources: ApiResource[]; templates: ApiResourceTemplate[] }>(
      '/api/resources?server=kitchen',
    );
    expect(listed.resources.map((r) => r.uri)).toEqual(['kitchen://text', 'kitchen://blob']);
    expect(listed.templates).toEqual([
      {
        server: 'kitchen',
        uriTemplate: 'kitchen://items/{id}',
        name: 'item',
        mimeType: 'text/plain',
        description: 'An item by id',
      },
    ]);
    const read = async (uri: string) =>
      (await under.api.json<{ contents: ApiContent[] }>(`/api/resources/read?uri=${encodeURIComponent(uri)}`))
        .contents;
    expect(await read('kitchen://text')).toEqual([
      { type: 'text', text: 'hello text', uri: 'kitchen://text', mimeType: 'text/plain' },
    ]);
    const [blob] = await read('kitchen://blob');
    expect(blob).toMatchObject({
      type: 'blob',
      uri: 'kitchen://blob',
      bytes: 10,
      url: expect.stringMatching(/^\/media\//),
    });
    expect(await read('kitchen://items/7')).toEqual([
      { type: 'text', text: 'item 7', uri: 'kitchen://items/7', mimeType: 'text/plain' },
    ]);
    const unknown = await under.api.error('/api/resources/read?uri=other://x', {}, 404);
    expect(unknown.message).toContain('"server"');
    expect((await under.api.error('/api/resources/read', {}, 400)).details).toEqual({ field: 'uri' });
  });

  it('lists prompts and gets one, refusing a missing argument', async () => {
    const { prompts } = await under.api.json<{ prompts: ApiPrompt[] }>('/api/prompts');
    expect(prompts).toEqual([
      {
        server: 'kitchen',
        name: 'greet',
        description: 'Greets someone by name.',
        arguments: [{ name: 'name', description: 'Who to greet', required: true }],
      },
    ]);
    const got = await under.api.json('/api/prompts/kitchen/greet', { body: { arguments: { name: 'Ada' } } });
    expect(got).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }] });
    expect((await under.api.error('/api/prompts/kitchen/greet', { body: {} }, 400)).code).toBe(
      'UPSTREAM_ERROR',
    );
    expect((await under.api.error('/api/prompts/kitchen/nope', { body: {} }, 404)).code).toBe('NOT_FOUND');
  });
});
