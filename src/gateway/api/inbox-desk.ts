import type { Inbox, InboxItem } from '../../host/inbox/inbox.js';

/**
 * The Inbox as the API and its streams show it. On one gateway that is the host's Inbox; with
 * replicas (docs/replicas.md) it is every live replica's items, each answered where its call
 * waits: an answer to another replica's item is relayed there (gateway/replicas/replica-inbox.ts),
 * and that replica's Inbox decides, so of two answers at once exactly one wins.
 */
export interface InboxDesk {
  /** The pending items, oldest first; another replica's carry its URL as `replica`. */
  items(): readonly DeskItem[];
  /** The pending item `id`, with the replica it waits on when that is another. */
  find(id: string): DeskItem | undefined;
  /**
   * Relays an answer (the API request and its body) to the replica whose item `item` is, and
   * returns that replica's answer.
   */
  relayAnswer?(item: DeskItem, request: Request, body: string, signal: AbortSignal): Promise<Response>;
  /** Calls `listener` when the items of other replicas changed; returns the function that stops it. */
  onChange(listener: () => void): () => void;
}

/** A pending item, and where it waits when that is another replica. */
export interface DeskItem {
  readonly item: InboxItem;
  /** The other replica's URL, for items another replica's call waits on. */
  readonly replica?: string;
}

/** The desk of one gateway: the host's own Inbox. */
export function localInboxDesk(inbox: Inbox): InboxDesk {
  return {
    items: () => inbox.list().map((item) => ({ item })),
    find: (id) => {
      const item = inbox.get(id);
      return item && { item };
    },
    onChange: () => () => undefined,
  };
}
