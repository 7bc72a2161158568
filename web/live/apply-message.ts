import type { ApiEvent, ApiInboxItem, ApiServer, ApiStreamEvent } from '../../src/gateway/api/api-types.js';
import type { SseMessage } from './sse-parser.js';
import type { StreamStatus } from './stream-status.js';

/**
 * What `GET /api/stream` keeps current for every page: the servers and their states, the
 * pending Inbox items, the catalog's version and the newest server events. Undefined lists
 * mean "not heard yet" (pages then ask the API themselves).
 */
export interface LiveState {
  readonly status: StreamStatus;
  readonly servers?: readonly ApiServer[];
  readonly inbox?: readonly ApiInboxItem[];
  readonly catalogEtag?: string;
  /** Events that arrived while the page was open, newest first (at most `MAX_LIVE_EVENTS`). */
  readonly events: readonly ApiEvent[];
}

export const MAX_LIVE_EVENTS = 200;

/**
 * The state after one stream message (`ApiStreamEvent`): the `servers` and `inbox` events
 * carry whole lists and replace them. Unknown events and bad JSON leave the state as it was.
 * Pure.
 */
export function applyMessage(state: LiveState, message: SseMessage): LiveState {
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return state;
  }
  if (typeof data !== 'object' || data === null) return state;
  const event = { event: message.event, data } as ApiStreamEvent;
  switch (event.event) {
    case 'servers':
      return Array.isArray(event.data.servers) ? { ...state, servers: event.data.servers } : state;
    case 'inbox':
      return Array.isArray(event.data.items) ? { ...state, inbox: event.data.items } : state;
    case 'catalog':
      return { ...state, catalogEtag: event.data.etag };
    case 'event':
      return { ...state, events: [event.data, ...state.events].slice(0, MAX_LIVE_EVENTS) };
    default:
      return state;
  }
}
