import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSse } from '../../../src/gateway/api/sse.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Everything the stream has queued so far, as text (never waits for more). */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, chunks: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let i = 0; i < chunks; i++) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return text;
}

describe('SSE responses', () => {
  it('sends events as text/event-stream, with ids, and a comment every 15 s', async () => {
    vi.useFakeTimers();
    const stream = openSse({ signal: new AbortController().signal });
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = stream.response.body!.getReader();
    stream.send('servers', { servers: [] });
    stream.send('event', { id: 7, text: 'a\nb' }, 7);
    expect(await drain(reader, 2)).toBe(
      'event: servers\ndata: {"servers":[]}\n\nevent: event\nid: 7\ndata: {"id":7,"text":"a\\nb"}\n\n',
    );
    vi.advanceTimersByTime(15_000);
    expect(await drain(reader, 1)).toBe(': keep-alive\n\n');
    stream.close();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closes once, on abort, on cancel or on close(), and tells its listeners', async () => {
    const controller = new AbortController();
    const aborted = openSse({ signal: controller.signal });
    const seen: string[] = [];
    aborted.onClose(() => seen.push('aborted'));
    controller.abort();
    controller.abort();
    expect(aborted.closed).toBe(true);
    aborted.send('x', 1);
    expect(await aborted.response.body!.getReader().read()).toEqual({ done: true, value: undefined });

    const cancelled = openSse({ signal: new AbortController().signal });
    cancelled.onClose(() => seen.push('cancelled'));
    await cancelled.response.body!.cancel();
    cancelled.close();

    const closed = openSse({ signal: new AbortController().signal });
    closed.close();
    closed.onClose(() => seen.push('late listener'));
    expect(seen).toEqual(['aborted', 'cancelled', 'late listener']);
  });

  it('drops a client that does not read once too much is queued for it', () => {
    const stream = openSse({ signal: new AbortController().signal, maxQueuedBytes: 1000 });
    for (let i = 0; i < 100 && !stream.closed; i++) stream.send('big', 'x'.repeat(100));
    expect(stream.closed).toBe(true);
  });
});
