import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ListWalkStopped, ListWalks, PageWalk } from '../../src/client/list-walk.js';

/** The page walk's bookkeeping, without a server. */
const byName = (item: { name?: unknown }) => (typeof item.name === 'string' ? item.name : undefined);

describe('PageWalk', () => {
  it('walks a list that ends, and keeps every item once', () => {
    const walk = new PageWalk<{ name: string }>('tools/list', 'tools', 10, byName);
    expect(walk.beforePage(undefined)).toBeUndefined();
    walk.afterPage({ tools: [{ name: 'a' }, { name: 'b' }], nextCursor: 'c1' });
    expect(walk.beforePage('c1')).toBeUndefined();
    walk.afterPage({ tools: [{ name: 'b' }, { name: 'c' }] });
    expect(walk.truncation).toBeUndefined();
    expect(walk.collected().map((t) => t.name)).toEqual(['a', 'b', 'c']);
  });

  it('stops at once when a page hands back a cursor already followed', () => {
    const walk = new PageWalk('tools/list', 'tools', 10, byName);
    walk.beforePage(undefined);
    walk.afterPage({ tools: [], nextCursor: 'a' });
    walk.beforePage('a');
    walk.afterPage({ tools: [], nextCursor: 'b' });
    walk.beforePage('b');
    walk.afterPage({ tools: [], nextCursor: 'a' });
    expect(walk.truncation).toEqual({ reason: 'cursor-loop', pages: 3 });
    expect(walk.beforePage('a')).toEqual({ reason: 'cursor-loop', pages: 3 });
  });

  it('refuses the page after the cap', () => {
    const walk = new PageWalk('prompts/list', 'prompts', 2, byName);
    expect(walk.beforePage(undefined)).toBeUndefined();
    expect(walk.beforePage('p2')).toBeUndefined();
    expect(walk.beforePage('p3')).toEqual({ reason: 'page-cap', pages: 2 });
  });
});

describe('ListWalks', () => {
  const request = (id: number, cursor?: string) =>
    ({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor ? { cursor } : {} }) as JSONRPCMessage;
  const answer = (id: number, nextCursor?: string) =>
    ({
      jsonrpc: '2.0',
      id,
      result: { tools: [{ name: `t${id}` }], ...(nextCursor && { nextCursor }) },
    }) as JSONRPCMessage;

  it('feeds the pages of the walk under way, refuses a looping page request, and forgets the walk', () => {
    const walks = new ListWalks();
    const walk = walks.begin('tools/list', 'tools', 50, byName);
    walks.outbound(request(1));
    walks.inbound(answer(1, 'x'));
    walks.outbound(request(2, 'x'));
    walks.inbound(answer(2, 'x'));
    expect(() => walks.outbound(request(3, 'x'))).toThrow(ListWalkStopped);
    expect(walk.collected()).toEqual([{ name: 't1' }, { name: 't2' }]);
    walks.end(walk);
    // Once the walk is over, list requests go out unwatched.
    expect(() => walks.outbound(request(4, 'x'))).not.toThrow();
  });
});
