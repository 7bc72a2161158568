import {
  Client,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  type Transport,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { logText, plainLogNotification } from '../../src/client/plain-log-notification.js';
import { ProgressRouter, tapTransport } from '../../src/client/transport-tap.js';

/**
 * The hand-read log line against the SDK's: every message the fast path takes must reach the
 * SDK's `notifications/message` handler as exactly the same line; what it leaves is the SDK's
 * to judge. A corpus of plain and odd shapes, run through a real SDK Client on a scripted
 * transport, then through the fast path.
 */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const DATA: unknown[] = [
  'text',
  '',
  { a: 1, b: [true, null] },
  42,
  null,
  [1, 'two'],
  { nested: { deep: 'x' } },
];

function corpus(): JSONRPCMessage[] {
  const out: Record<string, unknown>[] = [];
  for (const level of [...LEVELS, 'verbose', 'INFO', 3, undefined])
    for (const data of [...DATA, undefined])
      for (const logger of ['kitchen', undefined, 7, null])
        out.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level, data, logger } });
  out.push(
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'm', _meta: {} } },
    {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'm', _meta: { progressToken: 'x' } },
    },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'm', _meta: 5 } },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'm', extra: true } },
    { jsonrpc: '2.0', method: 'notifications/message' },
    { jsonrpc: '2.0', method: 'notifications/message', params: null },
    { jsonrpc: '2.0', method: 'notifications/message', params: ['info', 'm'] },
    { jsonrpc: '2.0', method: 'notifications/message', params: 'info' },
    { jsonrpc: '2.0', id: 9, method: 'notifications/message', params: { level: 'info', data: 'm' } },
    { jsonrpc: '2.0', method: 'notifications/other', params: { level: 'info', data: 'm' } },
  );
  // JSON round trip: what a transport hands over has no undefined values.
  return out.map((m) => JSON.parse(JSON.stringify(m)) as JSONRPCMessage);
}

/** A transport that answers `initialize` and lets the test push server messages. */
function scriptedTransport(): Transport & { push(message: JSONRPCMessage): void } {
  const transport: Transport & { push(message: JSONRPCMessage): void } = {
    async start() {},
    async close() {},
    async send(message) {
      const m = message as { id?: number; method?: string };
      if (m.method === 'initialize')
        queueMicrotask(() =>
          transport.onmessage?.({
            jsonrpc: '2.0',
            id: m.id!,
            result: {
              protocolVersion: LATEST_PROTOCOL_VERSION,
              capabilities: { logging: {} },
              serverInfo: { name: 's', version: '1' },
            },
          } as JSONRPCMessage),
        );
    },
    push(message) {
      transport.onmessage?.(message);
    },
  };
  return transport;
}

async function sdkLines(messages: readonly JSONRPCMessage[]): Promise<(string | undefined)[]> {
  const client = new Client({ name: 't', version: '1' });
  let last: string | undefined;
  client.setNotificationHandler('notifications/message', (n) => {
    last = JSON.stringify([n.params.level, logText(n.params.data), n.params.logger]);
  });
  const transport = scriptedTransport();
  await client.connect(transport);
  const seen: (string | undefined)[] = [];
  for (const message of messages) {
    last = undefined;
    transport.push(structuredClone(message));
    // The SDK dispatches notifications a microtask later.
    await new Promise((r) => setImmediate(r));
    seen.push(last);
  }
  await client.close();
  return seen;
}

describe('plainLogNotification', () => {
  it('takes only what the SDK delivers, and delivers the same line', async () => {
    const messages = corpus();
    const sdk = await sdkLines(messages);
    let taken = 0;
    for (const [i, message] of messages.entries()) {
      const line = plainLogNotification(message);
      if (!line) continue;
      taken++;
      expect(JSON.stringify([line.level, line.text, line.logger]), JSON.stringify(message)).toBe(sdk[i]);
    }
    // The plain shapes: every level × data × (a string logger or none), and one with an extra key.
    expect(taken).toBe(LEVELS.length * DATA.length * 2 + 1);
  });

  it('consumes plain log lines before the SDK, and hands everything else on', () => {
    const transport = {} as Transport;
    const lines: string[] = [];
    tapTransport(transport, new ProgressRouter(), (level, text, logger) =>
      lines.push(`${level}/${logger}/${text}`),
    );
    const passed: JSONRPCMessage[] = [];
    // The SDK sets its handler on connect, chaining ours.
    transport.onmessage = (message) => passed.push(message);
    const plain = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', logger: 'k', data: 'hi' },
    };
    const odd = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'loud', data: 'hi' } };
    const response = { jsonrpc: '2.0', id: 1, result: {} };
    for (const m of [plain, odd, response]) transport.onmessage?.(m as JSONRPCMessage);
    expect(lines).toEqual(['info/k/hi']);
    expect(passed).toEqual([odd, response]);
  });
});
