import { describe, expect, it } from 'vitest';
import { requestId } from '../../../../src/gateway/http/middleware/request-id.js';
import { createPrincipal } from '../../../../src/gateway/http/principal.js';
import { contextFor, manualClock, type RecordingLogger, recordingLogger, runStep } from '../harness.js';

describe('requestId', () => {
  it('gives the request an id, returns it, and logs one line without secrets', async () => {
    const clock = manualClock();
    const log = recordingLogger();
    const request = new Request('http://127.0.0.1:7777/mcp?access_token=SECRET-QUERY', {
      method: 'POST',
      headers: { authorization: 'Bearer SECRET-HEADER' },
      body: '{"secret":"SECRET-BODY"}',
    });
    const ctx = contextFor(request, { log, startedAt: clock.now() });
    const { response } = await runStep(
      requestId({ now: clock.now, generate: () => 'gen-1' }),
      ctx,
      async (c) => {
        clock.advance(42);
        c.principal = createPrincipal({ id: 'ci', kind: 'token' });
        return new Response('ok', { status: 201 });
      },
    );
    expect(response?.headers.get('x-request-id')).toBe('gen-1');
    expect(ctx.id).toBe('gen-1');
    expect(log.accessed).toHaveLength(1);
    expect(log.accessed[0]).toMatchObject({
      id: 'gen-1',
      method: 'POST',
      path: '/mcp',
      status: 201,
      ms: 42,
      principal: 'ci',
    });
    expect(JSON.stringify(log.accessed)).not.toMatch(/SECRET/);
  });

  it('keeps a short safe caller id and replaces anything else', async () => {
    const run = async (sent: string) => {
      const ctx = contextFor(new Request('http://127.0.0.1/', { headers: { 'x-request-id': sent } }));
      const { response } = await runStep(requestId({ generate: () => 'fresh' }), ctx);
      return response?.headers.get('x-request-id');
    };
    expect(await run('trace-abc.123_X')).toBe('trace-abc.123_X');
    expect(await run('a b')).toBe('fresh');
    expect(await run('x'.repeat(65))).toBe('fresh');
    expect(await run('<script>')).toBe('fresh');
  });

  it('sets the header on a response whose headers are immutable', async () => {
    const log: RecordingLogger = recordingLogger();
    const ctx = contextFor(new Request('http://127.0.0.1/'), { log });
    const { response } = await runStep(requestId({ generate: () => 'r' }), ctx, async () =>
      Response.redirect('http://127.0.0.1/elsewhere', 302),
    );
    expect(response?.status).toBe(302);
    expect(response?.headers.get('x-request-id')).toBe('r');
    expect(response?.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
  });
});
