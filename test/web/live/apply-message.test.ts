import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../../src/gateway/api/api-types.js';
import { applyMessage, type LiveState, MAX_LIVE_EVENTS } from '../../../web/live/apply-message.js';

const EMPTY: LiveState = { status: { state: 'open' }, events: [] };
const message = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) });

describe('applyMessage', () => {
  it('replaces the servers and the Inbox with each snapshot', () => {
    const server = { name: 'weather', state: 'connected' };
    let state = applyMessage(EMPTY, message('servers', { servers: [server] }));
    expect(state.servers).toEqual([server]);
    state = applyMessage(state, message('inbox', { items: [{ id: 'a' }] }));
    state = applyMessage(state, message('inbox', { items: [] }));
    expect(state.inbox).toEqual([]);
    expect(state.servers).toEqual([server]);
  });

  it('keeps the catalog etag and the newest events first, up to the limit', () => {
    let state = applyMessage(EMPTY, message('catalog', { etag: 'v2' }));
    expect(state.catalogEtag).toBe('v2');
    for (let id = 1; id <= MAX_LIVE_EVENTS + 5; id++) {
      const event: ApiEvent = {
        id,
        server: 's',
        method: 'm',
        params: {},
        receivedAt: '2026-01-01T00:00:00Z',
      };
      state = applyMessage(state, message('event', event));
    }
    expect(state.events).toHaveLength(MAX_LIVE_EVENTS);
    expect(state.events[0]?.id).toBe(MAX_LIVE_EVENTS + 5);
  });

  it('leaves the state alone for unknown events, bad JSON and malformed snapshots', () => {
    for (const bad of [
      message('something-new', { x: 1 }),
      { event: 'servers', data: '{not json' },
      message('servers', { servers: 'nope' }),
      message('inbox', null),
    ]) {
      expect(applyMessage(EMPTY, bad)).toBe(EMPTY);
    }
  });
});
