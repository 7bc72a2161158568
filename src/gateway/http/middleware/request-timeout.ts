import type { Middleware } from '../context.js';
import { HttpError } from '../http-error.js';

/** Runs `fire` after `ms`; returns how to cancel it. Injected in tests instead of real time. */
export type Schedule = (fire: () => void, ms: number) => () => void;

const realTimers: Schedule = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/**
 * Gives the handler `ms` to produce its Response; past that the request's signal aborts and
 * the client gets 504. The limit covers the time until the Response object exists, not its
 * body: a streamed (SSE) response that started in time runs as long as it runs, and only the
 * client going away ends it. Downstream, `ctx.signal` and `ctx.request.signal` abort on either.
 */
export function requestTimeout(options: { ms: number; schedule?: Schedule }): Middleware {
  const schedule = options.schedule ?? realTimers;
  return async (ctx, next) => {
    const controller = new AbortController();
    const upstream = ctx.signal;
    const forward = () => controller.abort(upstream.reason);
    // Kept past the timeout's end: a client leaving mid-stream must still reach the handler.
    if (upstream.aborted) forward();
    else upstream.addEventListener('abort', forward, { once: true });
    ctx.signal = controller.signal;
    ctx.request = new Request(ctx.request, { signal: controller.signal });

    let cancel = () => {};
    const timedOut = new Promise<never>((_resolve, reject) => {
      cancel = schedule(() => {
        const error = new HttpError(504, `The request took longer than ${options.ms} ms and was cancelled.`);
        controller.abort(error);
        reject(error);
      }, options.ms);
    });
    try {
      return await Promise.race([next(), timedOut]);
    } finally {
      cancel();
    }
  };
}
