import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { liftPlainToolResult, parsePlainToolResult } from '../../src/client/plain-tool-result.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { kitchenSinkBin } from '../fixtures/paths.js';

/**
 * The hand reading of plain `tools/call` results against the SDK's own: the era codec and the
 * result schema of a real 2026-07-28 connection read every case, and where the hand reading
 * takes a result it must give the same thing, byte for byte as JSON (so key order too).
 */
interface Codec {
  decodeResult(method: string, raw: unknown): { kind: string; result?: Record<string, unknown> };
  validateResult(method: string, raw: unknown): { ok: boolean; value?: unknown };
}

const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
let connection: Connection;
let codec: Codec;

beforeAll(async () => {
  connection = new Connection({
    config: normalizeServerEntry({
      name: 'kitchen',
      command: process.execPath,
      args: [kitchenSinkBin],
      protocol: 'modern',
    }),
    eraStore: new MemoryEraVerdictStore(),
  });
  await connection.connect();
  codec = (connection as unknown as { client: { _wireCodec(): Codec } }).client._wireCodec();
});

afterAll(() => connection.close());

/** What the SDK makes of `raw`: the lifted result and the parsed one, or why not. */
function sdkReading(raw: unknown): { lifted: string; parsed: string } | { refused: string } {
  const decoded = codec.decodeResult('tools/call', raw);
  if (decoded.kind !== 'complete' || !decoded.result) return { refused: decoded.kind };
  const validated = codec.validateResult('tools/call', decoded.result);
  if (!validated.ok) return { refused: 'invalid' };
  return { lifted: JSON.stringify(decoded.result), parsed: JSON.stringify(validated.value) };
}

/** Results as servers send them, each through JSON as it arrives on the wire. */
const wire = (text: string): unknown => JSON.parse(text);

const TAKEN: unknown[] = [
  { content: [{ type: 'text', text: 'ping' }], resultType: 'complete' },
  {
    content: [{ type: 'text', text: 'ping' }],
    resultType: 'complete',
    _meta: { [SERVER_INFO]: { name: 'up', version: '1.0.0' } },
  },
  {
    resultType: 'complete',
    isError: true,
    content: [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      { type: 'audio', data: '', mimeType: 'audio/wav' },
    ],
    structuredContent: { n: [1, 2, { deep: null }] },
    _meta: { [SERVER_INFO]: { name: 'up', version: '2' }, trace: { id: 'x' } },
  },
  { content: [], resultType: 'complete', structuredContent: 5, _meta: { trace: 'x' } },
  { content: [], resultType: 'complete', _meta: {} },
  wire('{"resultType":"complete","content":[{"type":"text","text":"\\u0000"}],"isError":false}'),
];

const DECLINED: unknown[] = [
  null,
  [],
  'text',
  { content: [] },
  { content: [], resultType: 'input_required' },
  { content: [], resultType: 'task' },
  { content: 'x', resultType: 'complete' },
  { content: [], resultType: 'complete', extra: 1 },
  { content: [], resultType: 'complete', isError: 'yes' },
  { content: [], resultType: 'complete', isError: undefined },
  { content: [{ text: 'ping', type: 'text' }], resultType: 'complete' },
  { content: [{ type: 'text', text: 'x', annotations: { priority: 1 } }], resultType: 'complete' },
  { content: [{ type: 'text', text: 'x', _meta: { a: 1 } }], resultType: 'complete' },
  { content: [{ type: 'text', text: 1 }], resultType: 'complete' },
  { content: [{ type: 'text' }], resultType: 'complete' },
  { content: [{ type: 'image', data: '%%%', mimeType: 'image/png' }], resultType: 'complete' },
  { content: [{ type: 'image', mimeType: 'image/png', data: 'aGk=' }], resultType: 'complete' },
  { content: [{ type: 'resource_link', uri: 'x:', name: 'x' }], resultType: 'complete' },
  { content: [null], resultType: 'complete' },
  { content: [], resultType: 'complete', _meta: [] },
  { content: [], resultType: 'complete', _meta: { trace: 1, [SERVER_INFO]: { name: 'a', version: '1' } } },
  { content: [], resultType: 'complete', _meta: { [SERVER_INFO]: { version: '1', name: 'a' } } },
  { content: [], resultType: 'complete', _meta: { [SERVER_INFO]: { name: 'a' } } },
  { content: [], resultType: 'complete', _meta: { [SERVER_INFO]: { name: 'a', version: '1', title: 't' } } },
  { content: [], resultType: 'complete', _meta: { [SERVER_INFO]: 5 } },
  wire('{"content":[],"resultType":"complete","__proto__":{"x":1}}'),
  wire('{"content":[],"resultType":"complete","_meta":{"__proto__":{"x":1}}}'),
];

describe('plain tools/call results read by hand', () => {
  it('reads every plain result exactly as the SDK does', () => {
    for (const raw of TAKEN) {
      const label = JSON.stringify(raw);
      const lifted = liftPlainToolResult(raw);
      expect(lifted, label).toBeDefined();
      expect({
        lifted: JSON.stringify(lifted),
        parsed: JSON.stringify(parsePlainToolResult(lifted!)),
      }).toEqual(sdkReading(raw));
    }
  });

  it('leaves every other result to the SDK', () => {
    for (const raw of DECLINED) expect(liftPlainToolResult(raw), JSON.stringify(raw)).toBeUndefined();
  });
});
