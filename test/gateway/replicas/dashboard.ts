import type { ApiInboxItem } from '../../../src/gateway/api/api-types.js';
import { SseReader } from '../sse-events.js';

/**
 * The dashboard's HTTP API of one replica, as a browser's script would use it, with a bearer
 * token (no CSRF token needed then).
 */
export function apiOf(origin: string, token: string) {
  const request = (path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${origin}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  return {
    origin,
    request,
    async json<T>(
      path: string,
      init: { method?: string; body?: unknown } = {},
    ): Promise<{ status: number; body: T }> {
      const response = await request(path, init);
      return { status: response.status, body: (await response.json()) as T };
    },
    async inbox(): Promise<ApiInboxItem[]> {
      const response = await request('/api/inbox');
      if (response.status !== 200)
        throw new Error(`GET /api/inbox: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { items: ApiInboxItem[] }).items;
    },
    async stream(): Promise<SseReader> {
      const response = await fetch(`${origin}/api/stream`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      if (response.status !== 200)
        throw new Error(`GET /api/stream: ${response.status} ${await response.text()}`);
      return new SseReader(response.body);
    },
  };
}

/** The next `event` event on a dashboard stream whose data `match`es (bounded). */
export async function nextEvent<T>(
  reader: SseReader,
  event: string,
  match: (data: T) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 500; i++) {
    const next = await reader.next(Math.max(1, deadline - Date.now()));
    if (!next) throw new Error(`the stream ended before a "${event}" event`);
    if (next.event !== event) continue;
    const data = JSON.parse(next.data) as T;
    if (match(data)) return data;
  }
  throw new Error(`500 events without the "${event}" event wanted`);
}

/** The API of one replica. */
export type ReplicaApi = ReturnType<typeof apiOf>;

/** The APIs of the first three replicas of a fleet, as `token`. */
export function apisOf(
  replicas: readonly { readonly origin: string }[],
  token: string,
): [ReplicaApi, ReplicaApi, ReplicaApi] {
  const [a, b, c] = replicas.map((r) => apiOf(r.origin, token));
  if (!a || !b || !c) throw new Error('three replicas are needed');
  return [a, b, c];
}
