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
export function requestTimeout(options: { ms: number; schedule?: Schedule; now?: () => number }): Middleware {
  const schedule = options.schedule ?? realTimers;
  const now = options.now ?? Date.now;
  const { ms } = options;
  return (ctx, next) =>
    new Promise<Response>((resolve, reject) => {
      let settled = false;
      let allowed = ms;
      let deadline = now() + ms;
      const fire = () => {
        if (settled) return;
        settled = true;
        const error = new HttpError(504, `The request took longer than ${allowed} ms and was cancelled.`);
        ctx.abort(error);
        reject(error);
      };
      let cancel = schedule(fire, ms);
      const started = deadline - ms;
      ctx.extendTimeout = (more) => {
        const later = now() + more;
        if (settled || later <= deadline) return;
        cancel();
        deadline = later;
        allowed = later - started;
        cancel = schedule(fire, more);
      };
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
