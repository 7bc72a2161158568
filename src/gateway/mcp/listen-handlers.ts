/**
 * The handlers of 2026-07-28 `subscriptions/listen` streams, one per view. The SDK's handler
 * publishes each change to every stream it holds, with no way to tell whose a stream is, so
 * each view gets a handler of its own: a change is published to the handlers of the views it
 * changed. At most `MAX_LISTEN_VIEWS` are kept; past that the least recently used is closed
 * (its streams end, and their clients listen again).
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { type GatewayPrincipal, type ListChanges, viewKeyOf } from './served-catalog.js';

/** How many views' listen handlers are kept at once. */
const MAX_LISTEN_VIEWS = 256;

export class ListenHandlers {
  private readonly listens = new Map<
    string,
    { readonly handler: McpHttpHandler; readonly viewer: GatewayPrincipal }
  >();

  /** @param make A new modern-era handler (the endpoint's own kind). */
  constructor(private readonly make: () => McpHttpHandler) {}

  /** The handler whose listen streams are those of `principal`'s view. */
  handlerFor(principal: GatewayPrincipal): McpHttpHandler {
    const key = viewKeyOf(principal);
    const known = this.listens.get(key);
    if (known) {
      this.listens.delete(key);
      this.listens.set(key, known);
      return known.handler;
    }
    if (this.listens.size >= MAX_LISTEN_VIEWS) {
      const [oldest, entry] = this.listens.entries().next().value!;
      this.listens.delete(oldest);
      void entry.handler.close();
    }
    const handler = this.make();
    this.listens.set(key, { handler, viewer: principal });
    return handler;
  }

  /** Publishes a catalog change to the streams of each view whose lists it changed. */
  changed(changed: (viewer: GatewayPrincipal) => ListChanges): void {
    for (const { handler, viewer } of this.listens.values()) {
      const lists = changed(viewer);
      if (lists.tools) handler.notify.toolsChanged();
      if (lists.prompts) handler.notify.promptsChanged();
      if (lists.resources) handler.notify.resourcesChanged();
    }
  }

  /** Closes every handler (their streams end). */
  async close(): Promise<void> {
    const listens = [...this.listens.values()];
    this.listens.clear();
    await Promise.all(listens.map((l) => l.handler.close()));
  }
}

/** Whether `body` is one `subscriptions/listen` request (2026-07-28: list changes on a stream). */
export function isListenRequest(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { method?: unknown }).method === 'subscriptions/listen'
  );
}
