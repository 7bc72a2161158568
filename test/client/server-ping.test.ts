import { afterEach, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';

/**
 * A server may ping the client (2025 eras). A hand-written stdio server pings in the middle of
 * a tool call and answers the call only once the pong came back, with its content.
 */
const SERVER = `
  const rl = require('node:readline').createInterface({ input: process.stdin });
  const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
  let pendingCall;
  rl.on('line', (line) => {
    const m = JSON.parse(line);
    if (m.method === 'initialize') {
      send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'pinger', version: '1' } } });
    } else if (m.method === 'tools/list') {
      send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'ping_me', inputSchema: { type: 'object' } }] } });
    } else if (m.method === 'tools/call') {
      pendingCall = m.id;
      send({ jsonrpc: '2.0', id: 'srv-ping-1', method: 'ping' });
    } else if (m.id === 'srv-ping-1' && pendingCall !== undefined) {
      send({ jsonrpc: '2.0', id: pendingCall, result: { content: [{ type: 'text', text: 'pong: ' + JSON.stringify(m.result) }] } });
    }
  });`;

let conn: Connection | undefined;
afterEach(async () => {
  await conn?.close();
});

describe('server → client ping', () => {
  it('answers a ping the server sends during a call', async () => {
    conn = new Connection({
      config: normalizeServerEntry({
        name: 'pinger',
        command: process.execPath,
        args: ['-e', SERVER],
        protocol: 'legacy',
      }),
      eraStore: new MemoryEraVerdictStore(),
    });
    await conn.connect();
    const r = await conn.callTool('ping_me', {}, { timeoutMs: 5000 });
    expect(r.text).toBe('pong: {}');
  });
});
