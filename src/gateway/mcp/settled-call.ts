import type { CallToolResult, ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import type { RelayAnswer } from '../../client/relay.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';

/**
 * A `tools/call` the fast path (fast-tool-call.ts) ran upstream but does not answer itself —
 * a task, another round, a result the SDK's validation might change, an error the SDK answers
 * with another status — handed to the full path, whose handler answers with it instead of
 * calling again. It travels in the request's `authInfo.extra`, which only the gateway sets.
 */
export type SettledCall =
  | { readonly kind: 'relayed'; readonly entry: CatalogTool; readonly answer: RelayAnswer }
  | { readonly kind: 'failed'; readonly error: ProtocolError }
  /** A 2025 session's call (fast-session-call.ts): the host's result, as the handler would return it. */
  | { readonly kind: 'result'; readonly result: CallToolResult };

const SETTLED_KEY = 'switchboard/settled-call';

/** `extra` (of the request's auth info) carrying `settled`. */
export function withSettledCall(
  extra: Record<string, unknown>,
  settled: SettledCall | undefined,
): Record<string, unknown> {
  return settled === undefined ? extra : { ...extra, [SETTLED_KEY]: settled };
}

/** The call settled before this request reached the server, if it was. */
export function settledCallOf(ctx: ServerContext): SettledCall | undefined {
  return ctx.http?.authInfo?.extra?.[SETTLED_KEY] as SettledCall | undefined;
}
