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
 * client going away ends it. The abort goes through `ctx.abort`, so `ctx.signal` and
 * `ctx.request.signal` stop the handler without this step making a request or signal of its own.
 */
export function requestTimeout(options: { ms: number; schedule?: Schedule }): Middleware {
  const schedule = options.schedule ?? realTimers;
  const { ms } = options;
  return (ctx, next) =>
    new Promise<Response>((resolve, reject) => {
      let settled = false;
      const cancel = schedule(() => {
        if (settled) return;
        settled = true;
        const error = new HttpError(504, `The request took longer than ${ms} ms and was cancelled.`);
        ctx.abort(error);
        reject(error);
      }, ms);
      next().then(
        (response) => {
          cancel();
          if (settled) return;
          settled = true;
          resolve(response);
        },
        (error: unknown) => {
          cancel();
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
}
