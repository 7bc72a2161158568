import type { CreateMessageResult } from '@modelcontextprotocol/client';
import { confineRoots, type Roots } from '../client/roots.js';
import type {
  ElicitationHandler,
  ElicitationParams,
  ElicitationResponse,
  RootsHandler,
  SamplingHandler,
  SamplingParams,
} from '../client/server-requests.js';

/**
 * Server→client requests across a hop: while a caller (a gateway client) has a call running on
 * a server, that server's elicitation, sampling and roots requests go to that caller, not to
 * the host's Inbox. Roots: the caller's, confined to those configuration gives the server
 * (roots.ts) — a gateway client may narrow what a server sees, never widen it; a server with
 * no configured roots gets none from a client either. Upstream servers do not say which call
 * a request belongs to, so with several callers on one server at once the one that called last
 * is asked. Without a caller,
 * elicitations go to the fallback (the Inbox) and sampling is refused with a clear error.
 */
export interface Caller {
  elicit?(params: ElicitationParams, signal: AbortSignal): Promise<ElicitationResponse>;
  sample?(params: SamplingParams, signal: AbortSignal): Promise<CreateMessageResult>;
  roots?(signal: AbortSignal): Promise<Roots>;
}

export class CallerRelay {
  private readonly callers = new Map<string, Caller[]>();

  /** Registers `caller` for `server` until the returned function is called. */
  enter(server: string, caller: Caller): () => void {
    const list = this.callers.get(server) ?? [];
    list.push(caller);
    this.callers.set(server, list);
    return () => {
      const at = list.lastIndexOf(caller);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.callers.get(server) === list) this.callers.delete(server);
    };
  }

  private current(server: string, want: keyof Caller): Caller | undefined {
    const list = this.callers.get(server) ?? [];
    for (let i = list.length - 1; i >= 0; i--) if (list[i]![want]) return list[i];
    return undefined;
  }

  elicitation(fallback: ElicitationHandler): ElicitationHandler {
    return (params, ctx) => {
      const caller = this.current(ctx.server, 'elicit');
      return caller?.elicit ? caller.elicit(params, ctx.signal) : fallback(params, ctx);
    };
  }

  sampling(): SamplingHandler {
    return async (params, ctx) => {
      const caller = this.current(ctx.server, 'sample');
      if (!caller?.sample) {
        throw new Error(
          `Sampling is available only during a call from a client that supports it; server "${ctx.server}" asked outside one.`,
        );
      }
      return caller.sample(params, ctx.signal);
    };
  }

  /**
   * The caller's roots, within the configured ones, while it has a call running on the
   * server; the configured ones otherwise.
   */
  roots(): RootsHandler {
    return async (ctx, configured) => {
      const caller = this.current(ctx.server, 'roots');
      return caller?.roots ? confineRoots(await caller.roots(ctx.signal), configured) : configured;
    };
  }
}
