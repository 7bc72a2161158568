import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/gateway/http/http-error.js';
import { requestTimeout } from '../../../../src/gateway/http/middleware/request-timeout.js';
import { abortableRequest, contextFor, manualSchedule, runStep } from '../harness.js';

describe('requestTimeout', () => {
  it('answers 504 and aborts the handler when no response comes in time', async () => {
    const timers = manualSchedule();
    const { request, abort } = abortableRequest('http://127.0.0.1/mcp', { method: 'POST', body: 'x' });
    const ctx = contextFor(request, { abort });
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

  it('gives a handler that waits for a person more time when it asks, never less', async () => {
    const timers = manualSchedule();
    let clock = 1_000;
    const ctx = contextFor(new Request('http://127.0.0.1/api/tools/x/call', { method: 'POST' }));
    let answer: ((response: Response) => void) | undefined;
    const running = runStep(
      requestTimeout({ ms: 5000, schedule: timers.schedule, now: () => clock }),
      ctx,
      () => new Promise<Response>((resolve) => (answer = resolve)),
    );
    await Promise.resolve();
    clock += 1000;
    ctx.extendTimeout?.(2000); // earlier than the deadline it has: nothing changes
    expect(timers.timers.map((t) => [t.ms, t.cancelled])).toEqual([[5000, false]]);
    ctx.extendTimeout?.(60_000);
    expect(timers.timers.map((t) => [t.ms, t.cancelled])).toEqual([
      [5000, true],
      [60_000, false],
    ]);
    answer?.(new Response('late but allowed'));
    const { response } = await running;
    expect(await response?.text()).toBe('late but allowed');
    timers.fireAll();
    expect(ctx.signal.aborted).toBe(false);
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
    const { request, abort } = abortableRequest('http://127.0.0.1/mcp', { signal: client.signal });
    const ctx = contextFor(request, { abort });
    const { response } = await runStep(
      requestTimeout({ ms: 1000, schedule: manualSchedule().schedule }),
      ctx,
    );
    expect(response?.status).toBe(200);
    client.abort(new Error('gone'));
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.request.signal.aborted).toBe(true);
  });

  it('hands the handler the same request, and aborts it through ctx.abort alone', async () => {
    const timers = manualSchedule();
    const reasons: unknown[] = [];
    const { request, abort } = abortableRequest('http://127.0.0.1/mcp', { method: 'POST', body: 'x' });
    const ctx = contextFor(request, {
      abort: (reason) => {
        reasons.push(reason);
        abort(reason);
      },
    });
    let seen: Request | undefined;
    let answer: ((response: Response) => void) | undefined;
    const running = runStep(requestTimeout({ ms: 50, schedule: timers.schedule }), ctx, (c) => {
      seen = c.request;
      return new Promise<Response>((resolve) => {
        answer = resolve;
      });
    });
    await Promise.resolve();
    expect(seen).toBe(request);
    expect(ctx.request).toBe(request);
    timers.fireAll();
    answer?.(new Response('too late'));
    const { error, response } = await running;
    expect(error?.status).toBe(504);
    expect(response).toBeUndefined();
    expect(reasons).toHaveLength(1);
    expect(request.signal.reason).toBe(reasons[0]);
  });

  it('passes a handler failure through and cancels the timer', async () => {
    const timers = manualSchedule();
    const ctx = contextFor(new Request('http://127.0.0.1/mcp'));
    const failure = new Error('handler broke');
    const outcome = await requestTimeout({ ms: 50, schedule: timers.schedule })(ctx, async () => {
      throw failure;
    }).catch((error: unknown) => error);
    expect(outcome).toBe(failure);
    expect(timers.timers[0]?.cancelled).toBe(true);
  });
});
