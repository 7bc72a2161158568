import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
} from '@modelcontextprotocol/client';
import type { Roots } from './roots.js';

/**
 * What a server may ask of us (elicitation, sampling, roots) and the pluggable handlers that
 * answer it. The same handlers serve legacy server→client requests and 2026-07-28
 * `input_required` results (the SDK routes both to them).
 */

/** Context given to every handler: which server asks, and a signal for when to give up. */
export interface ServerRequestContext {
  readonly server: string;
  readonly signal: AbortSignal;
}

export type ElicitationParams = ElicitRequest['params'];
export type ElicitationResponse = ElicitResult;

/** Answers an elicitation (form or URL mode). The default declines. */
export type ElicitationHandler = (
  params: ElicitationParams,
  ctx: ServerRequestContext,
) => Promise<ElicitationResponse>;

export type SamplingParams = CreateMessageRequest['params'];

/** Answers `sampling/createMessage`. Without one, the capability is not declared. */
export type SamplingHandler = (
  params: SamplingParams,
  ctx: ServerRequestContext,
) => Promise<CreateMessageResult>;

export const declineElicitation: ElicitationHandler = async () => ({ action: 'decline' });

export type { Roots } from './roots.js';

/**
 * Answers `roots/list`. `configured` are the roots configuration gives this server (roots.ts:
 * its entry's, else the embedding app's, else none): the default answer, which a gateway
 * narrows to its calling client's.
 */
export type RootsHandler = (ctx: ServerRequestContext, configured: Roots) => Roots | Promise<Roots>;

/** The handlers a connection answers server requests with. */
export interface ServerRequestHandlers {
  readonly elicitation: ElicitationHandler;
  readonly sampling?: SamplingHandler;
  readonly roots: (ctx: ServerRequestContext) => Roots | Promise<Roots>;
}

/**
 * Answers a keyed set of embedded server requests (2026-07-28 `inputRequests`, e.g. of a task
 * in `input_required`) with the same handlers that answer live requests. Each key gets the
 * response of its request; an unsupported request is declined per its kind.
 */
export async function answerInputRequests(
  requests: Readonly<Record<string, unknown>>,
  handlers: ServerRequestHandlers,
  ctx: ServerRequestContext,
): Promise<Record<string, unknown>> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
    if (method === 'elicitation/create') {
      responses[key] = await handlers.elicitation(params as ElicitationParams, ctx);
    } else if (method === 'sampling/createMessage' && handlers.sampling) {
      responses[key] = await handlers.sampling(params as SamplingParams, ctx);
    } else if (method === 'roots/list') {
      responses[key] = { roots: await handlers.roots(ctx) };
    } else {
      throw new Error(`the server asked for ${String(method)}, which this client does not answer`);
    }
  }
  return responses;
}
