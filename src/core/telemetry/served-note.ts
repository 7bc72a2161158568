import { type Context, context, createContextKey } from '@opentelemetry/api';

/**
 * What the layers below learn of a served request that its SERVER span should say: which
 * configured server the call went to (known only once the host resolved the tool's name),
 * who asked, and how it ended in our own terms (a policy denial reaches the wire as a
 * JSON-RPC error or an `isError` result, whose code alone does not say "denied"). The gateway
 * puts one note in the context of each request it serves under a span (served-span.ts in the
 * gateway); the host writes to it (governed-call.ts), and the CLIENT span of the upstream
 * request reads the principal from it. Nothing is written when no span is being served.
 */
export interface ServedNote {
  /** The principal the request is served for: an id, never a credential. */
  readonly principal?: string;
  server?: string;
  outcome?: string;
  errorCode?: string;
}

const NOTE = createContextKey('switchboard served request note');

/** `ctx` carrying `note` for whatever runs within it. */
export function withServedNote(ctx: Context, note: ServedNote): Context {
  return ctx.setValue(NOTE, note);
}

/** The note of the request being served, if one is. Without a context manager: none. */
export function servedNote(): ServedNote | undefined {
  return context.active().getValue(NOTE) as ServedNote | undefined;
}
