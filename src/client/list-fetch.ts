import { type Client, type RequestOptions, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ListKind, ListSnapshot } from './list-cache.js';
import { ListWalkStopped, type ListWalks } from './list-walk.js';

/**
 * Fetches one complete list from a server, in one walk. The SDK walks `nextCursor` for us
 * (and filters tools with invalid SEP-2243 header declarations, and keeps the list it mirrors
 * headers from); the walk is watched page by page on the wire (list-walk.ts), so a server that
 * loops is stopped at its first repeated cursor, one that keeps paging at the cap, and either
 * way the pages seen come back as a list marked truncated, with the reason — never an endless
 * loop, never a second walk, never a failed list.
 */
type ListCall = (client: Client, options: RequestOptions & { cacheMode: 'refresh' }) => Promise<unknown>;

export const LIST_METHODS: Record<
  ListKind,
  {
    readonly name: string;
    readonly field: string;
    /** What names an item, so a page served twice adds nothing. */
    readonly key: string;
    readonly all: ListCall;
  }
> = {
  tools: { name: 'tools/list', field: 'tools', key: 'name', all: (c, o) => c.listTools(undefined, o) },
  resources: {
    name: 'resources/list',
    field: 'resources',
    key: 'uri',
    all: (c, o) => c.listResources(undefined, o),
  },
  resourceTemplates: {
    name: 'resources/templates/list',
    field: 'resourceTemplates',
    key: 'uriTemplate',
    all: (c, o) => c.listResourceTemplates(undefined, o),
  },
  prompts: {
    name: 'prompts/list',
    field: 'prompts',
    key: 'name',
    all: (c, o) => c.listPrompts(undefined, o),
  },
};

export async function fetchList<T>(
  client: Client,
  kind: ListKind,
  options: RequestOptions,
  walks: ListWalks,
  pageCap: number,
): Promise<ListSnapshot<T>> {
  const method = LIST_METHODS[kind];
  const walk = walks.begin<T>(method.name, method.field, pageCap, (item) => {
    const key = (item as Record<string, unknown> | null)?.[method.key];
    return typeof key === 'string' ? key : undefined;
  });
  try {
    const result = (await method.all(client, { ...options, cacheMode: 'refresh' })) as Record<
      string,
      unknown
    >;
    // The SDK ends a walk quietly when a page repeats the one before, cursor and all.
    const cut = walk.truncation;
    if (cut) return { items: walk.collected(), truncated: true, truncation: cut };
    return { items: result[method.field] as T[], truncated: false };
  } catch (error) {
    const capped = error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded;
    const cut = error instanceof ListWalkStopped ? error.truncation : capped ? walk.truncation : undefined;
    if (cut) return { items: walk.collected(), truncated: true, truncation: cut };
    if (capped)
      return { items: walk.collected(), truncated: true, truncation: { reason: 'page-cap', pages: pageCap } };
    throw error;
  } finally {
    walks.end(walk);
  }
}
