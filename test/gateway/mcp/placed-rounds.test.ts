import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { serveRoundElsewhere } from '../../../src/gateway/mcp/placed-rounds.js';
import { type RelayState, relayStateCodec, relayStateKey } from '../../../src/gateway/mcp/relay-state.js';
import type { SessionPlacement } from '../../../src/gateway/mcp/session-placement.js';

/**
 * Which replica serves a round of a multi-round call (docs/replicas.md): the one its sealed
 * state names, reached by relaying the request unchanged; none, with what to do, when that one
 * is gone; this one for a state naming it, naming none, or one that does not verify.
 */
const codec = relayStateCodec(relayStateKey(new Uint8Array(32).fill(7)));
const alice = { id: 'alice', allows: () => true };

const mint = (state: RelayState, method = 'tools/call', principal = 'alice') =>
  codec.mint(state, {
    mcpReq: { method },
    http: { authInfo: { clientId: principal } },
  } as unknown as ServerContext);

function placement(
  peers: Record<string, string>,
  answer: Response | 'unreachable' | 'lost' = Response.json({ ok: 1 }),
) {
  const forwarded: { url: string; body: string | undefined }[] = [];
  const place = {
    self: 'me',
    urlOf: (id: string) => peers[id],
    forward: async (url: string, _request: Request, body: string | undefined) => {
      forwarded.push({ url, body });
      return answer;
    },
  } as unknown as SessionPlacement;
  return { place, forwarded };
}

async function route(
  place: SessionPlacement,
  body: unknown,
  options: { relayed?: boolean; principal?: typeof alice } = {},
): Promise<Response | undefined> {
  return serveRoundElsewhere({
    placement: place,
    codec,
    principal: options.principal ?? alice,
    body,
    request: () => new Request('http://gateway.test/mcp', { method: 'POST', body: JSON.stringify(body) }),
    signal: new AbortController().signal,
    relayed: options.relayed ?? false,
  });
}

const call = (requestState: string, id: number | undefined = 3) => ({
  jsonrpc: '2.0',
  ...(id !== undefined && { id }),
  method: 'tools/call',
  params: { name: 't', arguments: {}, requestState },
});

describe('rounds only one replica can serve', () => {
  it('are relayed, unchanged, to the replica their state names', async () => {
    const { place, forwarded } = placement({ other: 'http://10.0.0.8:7777' });
    const body = call(await mint({ n: 't', h: 'x', p: 'park', r: 'other' }));
    const answer = await route(place, body);
    expect(await answer?.json()).toEqual({ ok: 1 });
    expect(forwarded).toEqual([{ url: 'http://10.0.0.8:7777', body: JSON.stringify(body) }]);
  });

  it('are served here when their state names this replica or none, or another relayed them', async () => {
    const { place, forwarded } = placement({ other: 'http://10.0.0.8:7777' });
    expect(await route(place, call(await mint({ n: 't', h: 'x', r: 'me' })))).toBeUndefined();
    expect(await route(place, call(await mint({ n: 't', h: 'x' })))).toBeUndefined();
    const elsewhere = call(await mint({ n: 't', h: 'x', r: 'other' }));
    expect(await route(place, elsewhere, { relayed: true })).toBeUndefined();
    expect(
      await route(place, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }),
    ).toBeUndefined();
    expect(forwarded).toEqual([]);
  });

  it('are not routed anywhere on a state the SDK would refuse: forged, bound to another caller or method', async () => {
    const { place, forwarded } = placement({ other: 'http://10.0.0.8:7777' });
    const real = await mint({ n: 't', h: 'x', r: 'other' });
    const [head, body, mac] = real.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: RelayState };
    payload.p = { ...payload.p, r: 'elsewhere' };
    const forged = `${head}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    expect(await route(place, call(forged))).toBeUndefined();
    expect(await route(place, call(real), { principal: { id: 'bob', allows: () => true } })).toBeUndefined();
    expect(
      await route(place, call(await mint({ n: 't', h: 'x', r: 'other' }, 'prompts/get'))),
    ).toBeUndefined();
    expect(await route(place, call('garbage'))).toBeUndefined();
    expect(forwarded).toEqual([]);
  });

  it('are refused with what to do when their replica is gone, and answered retryable when it went mid-way', async () => {
    const gone = placement({});
    const refused = await route(gone.place, call(await mint({ n: 't', h: 'x', r: 'dead' })));
    const error = (await refused!.json()) as { id: number; error: { code: number; message: string } };
    expect(error.id).toBe(3);
    expect(error.error.code).toBe(-32602);
    expect(error.error.message).toMatch(/Send the call again without requestState/);

    const unreachable = placement({ other: 'http://10.0.0.8:7777' }, 'unreachable');
    const notThere = await route(unreachable.place, call(await mint({ n: 't', h: 'x', r: 'other' })));
    expect(((await notThere!.json()) as { error: { code: number } }).error.code).toBe(-32602);

    const lost = placement({ other: 'http://10.0.0.8:7777' }, 'lost');
    const midway = await route(lost.place, call(await mint({ n: 't', h: 'x', r: 'other' })));
    expect(await midway!.json()).toMatchObject({ id: 3, error: { code: -32011, data: { retryable: true } } });
  });
});
