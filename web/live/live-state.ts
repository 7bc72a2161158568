import type { ApiServer } from '../../src/gateway/api/api-types.js';
import type { ApiClient } from '../api/api-client.js';
import { createStore } from '../state/store.js';
import { applyMessage, type LiveState } from './apply-message.js';
import { followStream } from './event-stream.js';

/** The live state every page reads (see `LiveState`). */
export const live = createStore<LiveState>({ status: { state: 'connecting' }, events: [] });

/** Starts following the stream into `live`; returns the function that stops it. */
export function startLive(client: ApiClient): () => void {
  return followStream(client, '/api/stream', {
    onStatus: (status) => live.set((s) => ({ ...s, status })),
    onMessage: (message) => live.set((s) => applyMessage(s, message)),
  });
}

/** Puts one server as an action answered it into the list, before the stream says so too. */
export function replaceServer(server: ApiServer): void {
  live.set((s) => {
    const servers = s.servers ?? [];
    const known = servers.some((x) => x.name === server.name);
    return {
      ...s,
      servers: known ? servers.map((x) => (x.name === server.name ? server : x)) : [...servers, server],
    };
  });
}

/** Takes a server off the list once it is removed. */
export function dropServer(name: string): void {
  live.set((s) => ({ ...s, ...(s.servers && { servers: s.servers.filter((x) => x.name !== name) }) }));
}

/** Takes an answered item off the Inbox at once, before the stream confirms it. */
export function dropInboxItem(id: string): void {
  live.set((s) => ({ ...s, ...(s.inbox && { inbox: s.inbox.filter((x) => x.id !== id) }) }));
}
