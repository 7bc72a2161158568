import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../core/errors.js';

/**
 * A paginated list as it is fetched, page by page, watched on the wire. The SDK walks
 * `nextCursor` itself (its aggregate keeps the list it derives header mirroring from, and
 * filters SEP-2243 tools), but it stops a looping server only at its page cap, and throws the
 * pages away then; and a server that repeats its last page with the same cursor makes it stop
 * quietly, as if the list were complete. Watching each page request and answer, the walk
 *  - refuses to send a page request for a cursor it already asked for (a loop: the same
 *    `nextCursor` forever, or cursors going round), and the page after the cap;
 *  - keeps every item of the pages it saw, so a list cut short is still returned, once, with
 *    why it was cut (`ListTruncation`).
 * MCP "Pagination": cursors are opaque and a client must not parse them, but asking twice for
 * the same one can only repeat an answer. Bookkeeping only; the transport tap feeds it.
 */

/** Why a list is incomplete. */
export interface ListTruncation {
  /** `page-cap`: the server still had pages after the cap; `cursor-loop`: it handed back a cursor already followed. */
  readonly reason: 'page-cap' | 'cursor-loop';
  /** Pages fetched before stopping. */
  readonly pages: number;
}

/** The error a page request the walk refused fails with (it never reaches the wire). */
export class ListWalkStopped extends SwitchboardError {
  constructor(
    method: string,
    readonly truncation: ListTruncation,
  ) {
    super(
      'UPSTREAM_PROTOCOL',
      `${method}: stopped after ${truncation.pages} pages (${truncation.reason}); the list is incomplete.`,
      { details: { method, ...truncation } },
    );
  }
}

/** One walk through one list. */
export class PageWalk<T = unknown> {
  private readonly items: T[] = [];
  private readonly keys = new Set<string>();
  private readonly requested = new Set<string>();
  private pages = 0;
  private stop?: ListTruncation;

  constructor(
    readonly method: string,
    private readonly field: string,
    private readonly cap: number,
    /** An item's identity (tool name, resource URI…), so a page served twice adds nothing. */
    private readonly keyOf: (item: T) => string | undefined,
  ) {}

  /** Why the walk stopped, once it did. */
  get truncation(): ListTruncation | undefined {
    return this.stop;
  }

  /** The items of every page seen, each once, in the order they came. */
  collected(): T[] {
    return [...this.items];
  }

  /** Before a page request: undefined to send it, or why it must not be sent. */
  beforePage(cursor: string | undefined): ListTruncation | undefined {
    if (this.stop) return this.stop;
    if (cursor !== undefined && this.requested.has(cursor)) {
      this.stop = { reason: 'cursor-loop', pages: this.pages };
    } else if (this.pages >= this.cap) {
      this.stop = { reason: 'page-cap', pages: this.pages };
    }
    if (this.stop) return this.stop;
    if (cursor !== undefined) this.requested.add(cursor);
    this.pages++;
    return undefined;
  }

  /** A page's result came. A `nextCursor` already followed ends the walk at once. */
  afterPage(result: unknown): void {
    const page = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
    const items = page[this.field];
    if (Array.isArray(items)) {
      for (const item of items as T[]) {
        const key = this.keyOf(item);
        if (key !== undefined) {
          if (this.keys.has(key)) continue;
          this.keys.add(key);
        }
        this.items.push(item);
      }
    }
    const next = page.nextCursor;
    if (this.stop === undefined && typeof next === 'string' && this.requested.has(next)) {
      this.stop = { reason: 'cursor-loop', pages: this.pages };
    }
  }
}

/** The walks under way on one transport, fed by its tap: page requests going out, answers coming in. */
export class ListWalks {
  private readonly active = new Map<string, PageWalk>();
  private readonly byRequest = new Map<RequestId, PageWalk>();

  /** Starts watching `method` (one walk per method at a time; the list cache shares fetches). */
  begin<T>(method: string, field: string, cap: number, keyOf: (item: T) => string | undefined): PageWalk<T> {
    const walk = new PageWalk<T>(method, field, cap, keyOf);
    this.active.set(method, walk as unknown as PageWalk);
    return walk;
  }

  end<T>(walk: PageWalk<T>): void {
    const ended = walk as unknown as PageWalk;
    if (this.active.get(walk.method) === ended) this.active.delete(walk.method);
    for (const [id, w] of this.byRequest) if (w === ended) this.byRequest.delete(id);
  }

  /** A request about to go out; throws ListWalkStopped for a page the walk must not fetch. */
  outbound(message: JSONRPCMessage): void {
    const { method, id, params } = message as {
      method?: unknown;
      id?: RequestId;
      params?: { cursor?: unknown };
    };
    if (typeof method !== 'string' || id === undefined) return;
    const walk = this.active.get(method);
    if (!walk) return;
    const cursor = typeof params?.cursor === 'string' ? params.cursor : undefined;
    const stop = walk.beforePage(cursor);
    if (stop) throw new ListWalkStopped(method, stop);
    this.byRequest.set(id, walk);
  }

  /** A message that came in: the answer to a page request, perhaps. */
  inbound(message: JSONRPCMessage): void {
    if (this.byRequest.size === 0) return;
    const { id, result } = message as { id?: RequestId; result?: unknown };
    if (id === undefined || 'method' in message) return;
    const walk = this.byRequest.get(id);
    if (!walk) return;
    this.byRequest.delete(id);
    if (result !== undefined) walk.afterPage(result);
  }
}
