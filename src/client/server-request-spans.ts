import {
  MCP_METHOD_NAME,
  SPAN_ELICITATION,
  SWITCHBOARD_ANSWER,
  SWITCHBOARD_SERVER,
} from '../core/telemetry/semconv.js';
import { stepSpan } from '../core/telemetry/step-span.js';
import type { ElicitationHandler, SamplingHandler } from './server-requests.js';

/**
 * The waits for a person (or the calling client) that a server's requests cause —
 * `elicitation/create` and `sampling/createMessage`, live or as 2026-07-28 `inputRequests` —
 * as spans under the call that is waiting (semconv.ts, `switchboard.elicitation.wait`), with
 * what the answer was (`accept`, `decline`, `cancel`). Without a tracer provider the handler
 * is called as it is.
 */
export function tracedElicitation(handler: ElicitationHandler): ElicitationHandler {
  return (params, ctx) =>
    stepSpan(
      SPAN_ELICITATION,
      {
        attributes: () => ({ [SWITCHBOARD_SERVER]: ctx.server, [MCP_METHOD_NAME]: 'elicitation/create' }),
        ended: (answer) => ({ [SWITCHBOARD_ANSWER]: answer.action }),
      },
      () => handler(params, ctx),
    );
}

export function tracedSampling(handler: SamplingHandler): SamplingHandler {
  return (params, ctx) =>
    stepSpan(
      SPAN_ELICITATION,
      {
        attributes: () => ({ [SWITCHBOARD_SERVER]: ctx.server, [MCP_METHOD_NAME]: 'sampling/createMessage' }),
      },
      () => handler(params, ctx),
    );
}
