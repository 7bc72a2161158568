import type { GatewayContext, Handler, Middleware } from './context.js';

/** Turns whatever a step threw into the response for it. */
export type ErrorMapper = (error: unknown, ctx: GatewayContext) => Response;

/**
 * Runs `steps` around `handler`, each step getting a `next` that runs the rest. An error thrown
 * at any depth is turned into a response by `onError` right there, so the steps above it see
 * an ordinary response: the access log records a 401's status, `X-Request-Id` is set on a 413.
 */
export function compose(
  steps: readonly Middleware[],
  handler: Handler,
  onError: ErrorMapper,
): (ctx: GatewayContext) => Promise<Response> {
  return (ctx) => {
    let reached = -1;
    const dispatch = async (index: number): Promise<Response> => {
      try {
        if (index <= reached) throw new Error('A middleware called next() twice.');
        reached = index;
        const step = steps[index];
        return await (step ? step(ctx, () => dispatch(index + 1)) : handler(ctx));
      } catch (error) {
        return onError(error, ctx);
      }
    };
    return dispatch(0);
  };
}
