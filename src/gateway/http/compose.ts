import type { GatewayContext, Handler, Middleware } from './context.js';

/** Turns whatever a step threw into the response for it. */
export type ErrorMapper = (error: unknown, ctx: GatewayContext) => Response;

/**
 * Runs `steps` around `handler`, each step getting a `next` that runs the rest. An error thrown
 * at any depth is turned into a response by `onError` right there, so the steps above it see
 * an ordinary response: the access log records a 401's status, `X-Request-Id` is set on a 413.
 * Promise chains rather than an async function per level: a call waiting upstream would keep
 * one suspended frame per step alive for its whole duration (and busy gateways hold many).
 */
export function compose(
  steps: readonly Middleware[],
  handler: Handler,
  onError: ErrorMapper,
): (ctx: GatewayContext) => Promise<Response> {
  return (ctx) => {
    let reached = -1;
    const mapError = (error: unknown) => onError(error, ctx);
    const dispatch = (index: number): Promise<Response> => {
      let running: Promise<Response>;
      try {
        if (index <= reached) throw new Error('A middleware called next() twice.');
        reached = index;
        const step = steps[index];
        running = step ? step(ctx, () => dispatch(index + 1)) : handler(ctx);
      } catch (error) {
        // A step that throws before it returns a promise: answered as if it had rejected.
        return new Promise((resolve) => resolve(mapError(error)));
      }
      return running.then(undefined, mapError);
    };
    return dispatch(0);
  };
}
