import { describe, expect, it } from 'vitest';
import { bodyCap } from '../../../../src/gateway/http/middleware/body-cap.js';
import { chunkedBody, contextFor, runStep } from '../harness.js';

const CAP = 1024;

/** A request whose body stream counts how many chunks were pulled from it. */
function countingRequest(chunks: Uint8Array[], headers: Record<string, string> = {}) {
  const counter = { pulled: 0, cancelled: false };
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) return controller.close();
      counter.pulled += 1;
      controller.enqueue(chunk);
    },
    cancel() {
      counter.cancelled = true;
    },
  });
  const request = new Request('http://127.0.0.1:7777/mcp', {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
  return { request, counter };
}

describe('bodyCap', () => {
  it('reads a body under the cap once and hands it on as bytes and as a fresh request', async () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const ctx = contextFor(new Request('http://127.0.0.1/mcp', { method: 'POST', body: text }));
    let seen = '';
    const { response, nextCalls } = await runStep(bodyCap({ maxBytes: CAP }), ctx, async (c) => {
      seen = await c.request.text();
      return new Response('ok');
    });
    expect(response?.status).toBe(200);
    expect(nextCalls).toBe(1);
    expect(new TextDecoder().decode(ctx.body)).toBe(text);
    expect(seen).toBe(text);
    expect(ctx.request.headers.get('content-length')).toBe(String(text.length));
  });

  it('accepts exactly the cap and passes requests without a body untouched', async () => {
    const exact = contextFor(new Request('http://127.0.0.1/', { method: 'POST', body: 'x'.repeat(CAP) }));
    expect((await runStep(bodyCap({ maxBytes: CAP }), exact)).response?.status).toBe(200);
    const get = contextFor(new Request('http://127.0.0.1/'));
    const before = get.request;
    expect((await runStep(bodyCap({ maxBytes: CAP }), get)).nextCalls).toBe(1);
    expect(get.body).toBeUndefined();
    expect(get.request).toBe(before);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const { request, counter } = countingRequest([new Uint8Array(10)], { 'content-length': String(CAP + 1) });
    const { error, nextCalls } = await runStep(bodyCap({ maxBytes: CAP }), contextFor(request));
    expect(error?.status).toBe(413);
    expect(nextCalls).toBe(0);
    expect(counter.pulled).toBe(0);
    expect(counter.cancelled).toBe(true);
  });

  it('refuses a body that lies about its length, and stops reading just past the cap', async () => {
    const chunks = Array.from({ length: 100 }, () => new Uint8Array(100));
    const { request, counter } = countingRequest(chunks, { 'content-length': '10' });
    const { error, nextCalls } = await runStep(bodyCap({ maxBytes: CAP }), contextFor(request));
    expect(error?.status).toBe(413);
    expect(error?.message).toMatch(/1024 bytes/);
    expect(nextCalls).toBe(0);
    expect(counter.pulled).toBeLessThanOrEqual(12);
    expect(counter.cancelled).toBe(true);
  });

  it('refuses a chunked body with no length once it passes the cap', async () => {
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      body: chunkedBody([new Uint8Array(600), new Uint8Array(600)]),
      duplex: 'half',
    } as RequestInit);
    expect(request.headers.get('content-length')).toBeNull();
    const { error } = await runStep(bodyCap({ maxBytes: CAP }), contextFor(request));
    expect(error?.status).toBe(413);
  });

  it('reads the body the adapter handed over beside the request, with the cap, and hands the request on', async () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const asked: number[] = [];
    const unreadBody = {
      read: async (max: number) => {
        asked.push(max);
        return new TextEncoder().encode(text);
      },
      discard: () => {
        throw new Error('not expected');
      },
    };
    const original = new Request('http://127.0.0.1/mcp', { method: 'POST' });
    const ctx = contextFor(original, { unreadBody });
    let seen: Uint8Array | undefined;
    const { response } = await runStep(bodyCap({ maxBytes: CAP }), ctx, async (c) => {
      seen = c.body;
      return new Response('ok');
    });
    expect(response?.status).toBe(200);
    expect(asked).toEqual([CAP]);
    expect(new TextDecoder().decode(seen)).toBe(text);
    expect(ctx.request).toBe(original);
    expect(new TextDecoder().decode(ctx.body)).toBe(text);
    expect(ctx.unreadBody).toBeUndefined();
  });

  it('refuses an adapter body over the cap, and discards one whose declared length is over it', async () => {
    const over = contextFor(new Request('http://127.0.0.1/mcp', { method: 'POST' }), {
      unreadBody: { read: async () => undefined, discard: () => {} },
    });
    expect((await runStep(bodyCap({ maxBytes: CAP }), over)).error?.status).toBe(413);
    let discarded = false;
    let read = false;
    const declared = contextFor(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-length': String(CAP + 1) } }),
      {
        unreadBody: {
          read: async () => {
            read = true;
            return new Uint8Array(0);
          },
          discard: () => {
            discarded = true;
          },
        },
      },
    );
    const { error, nextCalls } = await runStep(bodyCap({ maxBytes: CAP }), declared);
    expect(error?.status).toBe(413);
    expect(nextCalls).toBe(0);
    expect({ discarded, read }).toEqual({ discarded: true, read: false });
  });
});
