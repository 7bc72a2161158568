import { describe, expect, it } from 'vitest';
import { type CassetteLine, parseCassette } from '../../../src/client/recording/cassette.js';
import { isSecretName, REDACTED, redact } from '../../../src/client/recording/redact.js';
import { ReplayMatcher } from '../../../src/client/recording/replay-matcher.js';

const header = '{"cassette":1,"server":"s","recordedAt":"2026-12-02T00:00:00.000Z"}';
const c = (at: number, message: Record<string, unknown>): CassetteLine => ({
  at,
  from: 'client',
  message: { jsonrpc: '2.0', ...message } as CassetteLine['message'],
});
const s = (at: number, message: Record<string, unknown>): CassetteLine => ({
  at,
  from: 'server',
  message: { jsonrpc: '2.0', ...message } as CassetteLine['message'],
});

describe('redact', () => {
  it('replaces configured secret values wherever they appear, and secret-named fields', () => {
    const message = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: 'key is sk-live-123456 and again sk-live-123456' }],
        auth: { api_key: 'zzz', access_token: 'ttt', Authorization: 'Bearer q', tokens: 3, name: 'ok' },
      },
    };
    const out = redact(message, ['sk-live-123456', 'on']);
    expect(JSON.stringify(out)).not.toContain('sk-live-123456');
    expect(out.result.content[0]!.text).toBe(`key is ${REDACTED} and again ${REDACTED}`);
    expect(out.result.auth).toEqual({
      api_key: REDACTED,
      access_token: REDACTED,
      Authorization: REDACTED,
      tokens: 3,
      name: 'ok',
    });
    // Short configured values are not treated as secrets: they would redact ordinary words.
    expect(JSON.stringify(redact({ text: 'on and on' }, ['on']))).toContain('on and on');
    expect(message.result.auth.api_key).toBe('zzz');
  });

  it('knows secret names in their usual spellings, and not their look-alikes', () => {
    for (const name of [
      'token',
      'API_KEY',
      'apiKey',
      'x-api-key',
      'client_secret',
      'password',
      'refresh-token',
      'cookie',
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of ['tokens', 'tokenizer', 'keyboard', 'passwordless_hint', 'name', 'secretary'])
      expect(isSecretName(name), name).toBe(false);
  });
});

describe('parseCassette', () => {
  it('reads the lines, and a last line cut short is left out', () => {
    const line = JSON.stringify(c(1, { id: 0, method: 'ping' }));
    const cassette = parseCassette(`${header}\n${line}\n{"at":2,"from":"ser`, 'x.jsonl');
    expect(cassette.header.server).toBe('s');
    expect(cassette.lines).toHaveLength(1);
  });

  it('names the file and line of anything else', () => {
    expect(() => parseCassette('{"x":1}\n', 'a.jsonl')).toThrow(/a\.jsonl:1: not a cassette/);
    expect(() => parseCassette(`${header}\nnot json\n{"at":1}\n`, 'a.jsonl')).toThrow(
      /a\.jsonl:2: not a recorded message/,
    );
  });
});

describe('ReplayMatcher', () => {
  const lines = [
    c(0, {
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', clientInfo: { name: 'a' } },
    }),
    s(5, { id: 0, result: { protocolVersion: '2025-11-25', serverInfo: { name: 's', version: '1' } } }),
    c(6, { method: 'notifications/initialized' }),
    c(7, {
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' }, _meta: { progressToken: 'p1' } },
    }),
    s(8, { method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } }),
    s(9, { method: 'notifications/message', params: { level: 'info', data: 'working' } }),
    s(12, { id: 1, result: { content: [{ type: 'text', text: 'a' }] } }),
    c(13, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } }),
    c(14, { id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } }),
    // Answered out of order: each response goes with its own request.
    s(15, { id: 3, result: { content: [{ type: 'text', text: 'b-second' }] } }),
    s(16, { id: 2, result: { content: [{ type: 'text', text: 'b-first' }] } }),
  ];

  it('answers a matching request with its recorded messages, the live id and progress token', () => {
    const m = new ReplayMatcher(lines);
    const init = m.answer({
      id: 'x',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', clientInfo: { name: 'other' } },
    });
    expect('messages' in init && init.messages.map((x) => x.message)).toEqual([
      {
        jsonrpc: '2.0',
        id: 'x',
        result: { protocolVersion: '2025-11-25', serverInfo: { name: 's', version: '1' } },
      },
    ]);
    const call = m.answer({
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' }, _meta: { progressToken: 'live' } },
    });
    if (!('messages' in call)) throw new Error(call.message);
    expect(call.messages.map((x) => x.message)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'live', progress: 1 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'a' }] } },
    ]);
    expect(call.messages.map((x) => x.afterMs)).toEqual([1, 2, 5]);
  });

  it('takes repeated matches in recorded order, then the last one again', () => {
    const m = new ReplayMatcher(lines);
    const text = (id: number) => {
      const a = m.answer({ id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'b' } } });
      return 'messages' in a ? JSON.stringify(a.messages.at(-1)!.message) : a.message;
    };
    expect(text(1)).toContain('b-first');
    expect(text(2)).toContain('b-second');
    expect(text(3)).toContain('b-second');
  });

  it('a request without a progress token gets no recorded progress', () => {
    const m = new ReplayMatcher(lines);
    const call = m.answer({
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'a' } },
    });
    expect('messages' in call && call.messages.map((x) => (x.message as { method?: string }).method)).toEqual(
      ['notifications/message', undefined],
    );
  });

  it('says what did not match, and how to let it', () => {
    const m = new ReplayMatcher(lines);
    const miss = m.answer({
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'zzz' } },
    });
    expect(miss).toMatchObject({ code: -32602 });
    expect('message' in miss && miss.message).toContain('params.arguments.text is "zzz", recorded "');
    expect('message' in miss && miss.message).toContain('--ignore arguments.text');
    const never = m.answer({ id: 1, method: 'prompts/get', params: { name: 'x' } });
    expect(never).toMatchObject({
      code: -32601,
      message: expect.stringContaining('No prompts/get was recorded'),
    });
  });

  it('--ignore and --exact change what counts', () => {
    const loose = new ReplayMatcher(lines, { ignore: ['arguments.text'] });
    expect(
      'messages' in
        loose.answer({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'zzz' } } }),
    ).toBe(true);
    const exact = new ReplayMatcher(lines, { mode: 'exact' });
    const withMeta = { name: 'echo', arguments: { text: 'a' }, _meta: { progressToken: 'other' } };
    expect('code' in exact.answer({ id: 1, method: 'tools/call', params: withMeta })).toBe(true);
    expect('code' in exact.answer({ id: 1, method: 'initialize', params: { protocolVersion: 'x' } })).toBe(
      true,
    );
  });
});
