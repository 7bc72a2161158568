/**
 * The lists of the Resources and Prompts pages: which items a filter keeps, and the items
 * grouped by server, in a stable order. Pure.
 */

/** Whether every word of `query` (any case) occurs in one of `fields`; an empty query keeps all. */
export function matchesQuery(fields: readonly (string | undefined)[], query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fields
    .filter((field) => field !== undefined)
    .join('\n')
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/** `items` by server: servers in name order, each server's items ordered by `sortKey`. */
export function groupByServer<T extends { readonly server: string }>(
  items: readonly T[],
  sortKey: (item: T) => string,
): [server: string, items: T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.server);
    if (group) group.push(item);
    else groups.set(item.server, [item]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([server, list]) => [server, list.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))]);
}
