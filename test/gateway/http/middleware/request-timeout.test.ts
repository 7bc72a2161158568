import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/gateway/http/http-error.js';
import { requestTimeout } from '../../../../src/gateway/http/middleware/request-timeout.js';
import { contextFor, manualSchedule, runStep } from '../harness.js';

describe('requestTimeout', () => {
  it('answers 504 and aborts the handler when no response comes in time', async () => {
    const timers = manualSchedule();
    const ctx = contextFor(new Request('http://127.0.0.1/mcp', { method: 'POST', body: 'x' }));
    let handlerSignal: AbortSignal | undefined;
    const running = runStep(requestTimeout({ ms: 5000, schedule: timers.schedule }), ctx, (c) => {
      handlerSignal = c.request.signal;
      return new Promise<Response>(() => {}); // never answers
    });
    await Promise.resolve();
    expect(timers.timers.map((t) => t.ms)).toEqual([5000]);
    timers.fireAll();
    const { error } = await running;
    expect(error?.status).toBe(504);
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(HttpError);
    expect(handlerSignal?.aborted).toBe(true);
  });

  it('does not cut a stream that started in time', async () => {
    const timers = manualSchedule();
    const ctx = contextFor(new Request('http://127.0.0.1/mcp'));
    let push: ((text: string) => void) | undefined;
    let end: (() => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (text) => controller.enqueue(new TextEncoder().encode(text));
        end = () => controller.close();
      },
    });
    const { response } = await runStep(
      requestTimeout({ ms: 10, schedule: timers.schedule }),
      ctx,
      async () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }),
    );
    expect(timers.timers[0]?.cancelled).toBe(true);
    timers.fireAll(); // a cancelled timer: nothing happens
    push?.('data: 1\n\n');
    push?.('data: 2\n\n');
    end?.();
    expect(await response?.text()).toBe('data: 1\n\ndata: 2\n\n');
    expect(ctx.signal.aborted).toBe(false);
  });

  it('passes the client going away on to the handler, even after the response started', async () => {
    const client = new AbortController();
    const ctx = contextFor(new Request('http://127.0.0.1/mcp', { signal: client.signal }));
    const { response } = await runStep(
      requestTimeout({ ms: 1000, schedule: manualSchedule().schedule }),
      ctx,
    );
    expect(response?.status).toBe(200);
    client.abort(new Error('gone'));
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.request.signal.aborted).toBe(true);
  });
});
