import { describe, expect, it } from 'vitest';
import { CallerRelay } from '../../src/host/caller-relay.js';

const ctx = (server: string) => ({ server, signal: new AbortController().signal });
const params = { message: 'm', requestedSchema: { type: 'object' as const, properties: {} } };

describe('CallerRelay', () => {
  it('asks the caller running on that server, the latest first, and the fallback otherwise', async () => {
    const relay = new CallerRelay();
    const handler = relay.elicitation(async () => ({ action: 'decline' }));
    const leaveA = relay.enter('s', { elicit: async () => ({ action: 'accept', content: { who: 'a' } }) });
    const leaveB = relay.enter('s', { elicit: async () => ({ action: 'accept', content: { who: 'b' } }) });
    expect(await handler(params, ctx('s'))).toMatchObject({ content: { who: 'b' } });
    expect(await handler(params, ctx('other'))).toEqual({ action: 'decline' });
    leaveB();
    expect(await handler(params, ctx('s'))).toMatchObject({ content: { who: 'a' } });
    leaveA();
    expect(await handler(params, ctx('s'))).toEqual({ action: 'decline' });
  });

  it('refuses sampling outside a call from a client that can sample', async () => {
    const relay = new CallerRelay();
    const sampling = relay.sampling();
    const request = { messages: [], maxTokens: 10 };
    await expect(sampling(request, ctx('s'))).rejects.toThrow(/only during a call/);
    const leave = relay.enter('s', {
      sample: async () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }),
    });
    expect(await sampling(request, ctx('s'))).toMatchObject({ model: 'm' });
    leave();
  });
});
