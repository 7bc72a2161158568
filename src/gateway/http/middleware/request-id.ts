import { randomUUID } from 'node:crypto';
import type { Middleware } from '../context.js';
import { withHeader } from '../response-headers.js';

/** A caller's id is kept only when it is this short and plain: it ends up in logs and headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface RequestIdOptions {
  /** Milliseconds, the same clock as `ctx.startedAt`; default `Date.now`. */
  readonly now?: () => number;
  /** A fresh id; default a random UUID. */
  readonly generate?: () => string;
}

/**
 * Gives the request an id (the caller's `X-Request-Id` when it is a short safe token), returns
 * it as `X-Request-Id`, and writes one access line when the response is ready: id, method,
 * path, status, time and principal, never the Authorization header, the query or the body.
 * For a streamed (SSE) response the line is written when the stream starts, not when it ends.
 */
export function requestId(options: RequestIdOptions = {}): Middleware {
  const now = options.now ?? Date.now;
  const generate = options.generate ?? randomUUID;
  return (ctx, next) => {
    const sent = ctx.head.header('x-request-id');
    ctx.id = sent !== null && SAFE_REQUEST_ID.test(sent) ? sent : generate();
    return next().then((response) => {
      ctx.log.access({
        at: new Date(),
        id: ctx.id,
        method: ctx.head.method,
        path: ctx.head.pathname,
        status: response.status,
        ms: now() - ctx.startedAt,
        ...(ctx.principal && { principal: ctx.principal.id }),
        remoteAddress: ctx.remoteAddress,
      });
      return withHeader(response, 'x-request-id', ctx.id);
    });
  };
}
