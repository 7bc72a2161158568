import { type Client, type RequestOptions, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { ListKind, ListSnapshot } from './list-cache.js';
import { passthroughSchema } from './passthrough-schema.js';

/**
 * Fetches one complete list from a server. The SDK walks `nextCursor` for us (and filters
 * tools with invalid SEP-2243 header declarations); when the server keeps paging past the
 * cap, the SDK throws and keeps nothing, so we walk the capped number of pages ourselves
 * and report the list as truncated instead of failing.
 */
type ListCall = (client: Client, options: RequestOptions & { cacheMode: 'refresh' }) => Promise<unknown>;

export const LIST_METHODS: Record<
  ListKind,
  { readonly name: string; readonly field: string; readonly all: ListCall }
> = {
  tools: { name: 'tools/list', field: 'tools', all: (c, o) => c.listTools(undefined, o) },
  resources: { name: 'resources/list', field: 'resources', all: (c, o) => c.listResources(undefined, o) },
  resourceTemplates: {
    name: 'resources/templates/list',
    field: 'resourceTemplates',
    all: (c, o) => c.listResourceTemplates(undefined, o),
  },
  prompts: { name: 'prompts/list', field: 'prompts', all: (c, o) => c.listPrompts(undefined, o) },
};

export async function fetchList<T>(
  client: Client,
  kind: ListKind,
  options: RequestOptions,
  pageCap: number,
): Promise<ListSnapshot<T>> {
  const method = LIST_METHODS[kind];
  try {
    const result = (await method.all(client, { ...options, cacheMode: 'refresh' })) as Record<
      string,
      unknown
    >;
    return { items: result[method.field] as T[], truncated: false };
  } catch (error) {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded)) throw error;
  }
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < pageCap; page++) {
    const result = (await client.request(
      { method: method.name, params: cursor === undefined ? {} : { cursor } },
      passthroughSchema,
      options,
    )) as Record<string, unknown>;
    items.push(...((result[method.field] as T[] | undefined) ?? []));
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (cursor === undefined) return { items, truncated: false };
  }
  return { items, truncated: true };
}
