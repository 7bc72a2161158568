import type { ListTruncation } from './list-walk.js';

/**
 * Cached lists (tools, resources, templates, prompts) of one connection. A list is fetched
 * once, served from memory, and dropped when the server says it changed. Fetches for the
 * same kind are shared, and a change during a fetch makes that fetch's answer stale.
 */
export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

/** A complete list, or as much of it as the server's paging allowed. */
export interface ListSnapshot<T> {
  readonly items: readonly T[];
  /** True when the list is incomplete: the page cap was reached, or the server's cursors looped. */
  readonly truncated: boolean;
  /** Why and where it was cut, when it was. */
  readonly truncation?: ListTruncation;
}

interface Entry {
  value?: ListSnapshot<unknown>;
  inflight?: Promise<ListSnapshot<unknown>>;
  generation: number;
}

export class ListCache {
  private readonly entries = new Map<ListKind, Entry>();

  private entry(kind: ListKind): Entry {
    let e = this.entries.get(kind);
    if (!e) {
      e = { generation: 0 };
      this.entries.set(kind, e);
    }
    return e;
  }

  peek<T>(kind: ListKind): ListSnapshot<T> | undefined {
    return this.entries.get(kind)?.value as ListSnapshot<T> | undefined;
  }

  /** Returns the cached list, or runs `fetch` (once, even for concurrent callers). */
  async get<T>(kind: ListKind, fetch: () => Promise<ListSnapshot<T>>): Promise<ListSnapshot<T>> {
    const e = this.entry(kind);
    if (e.value) return e.value as ListSnapshot<T>;
    if (!e.inflight) {
      const generation = e.generation;
      const run = fetch().then(
        (value) => {
          if (e.generation === generation) e.value = value;
          if (e.inflight === run) e.inflight = undefined;
          return value;
        },
        (error: unknown) => {
          if (e.inflight === run) e.inflight = undefined;
          throw error;
        },
      );
      e.inflight = run as Promise<ListSnapshot<unknown>>;
    }
    return e.inflight as Promise<ListSnapshot<T>>;
  }

  /** Forgets a list; the next `get` fetches it again. */
  invalidate(kind: ListKind): void {
    const e = this.entry(kind);
    e.generation++;
    e.value = undefined;
    e.inflight = undefined;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** An item of a list by name, indexed once per list snapshot (catalogs run to thousands). */
const indexes = new WeakMap<ListSnapshot<{ name: string }>, Map<string, { name: string }>>();
export function findByName<T extends { name: string }>(list: ListSnapshot<T>, name: string): T | undefined {
  let index = indexes.get(list);
  if (!index) {
    index = new Map(list.items.map((item) => [item.name, item]));
    indexes.set(list, index);
  }
  return index.get(name) as T | undefined;
}
