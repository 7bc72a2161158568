import { describe, expect, it } from 'vitest';
import { jsonTextOnce, objectJsonPieces, objectJsonText } from '../../src/core/json-text.js';

/**
 * The one-encoding pieces: put together from their parts, the texts must be byte for byte what
 * `JSON.stringify` writes for the whole, for awkward values too, since clients get them as they are.
 */
const awkward = [
  { content: [{ type: 'text', text: 'plain' }] },
  { content: [{ type: 'text', text: 'naïve café — ✓ 😀 \u2028 \u0000 "q" \\ \t\n' }], isError: false },
  {
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x', version: '1' } },
    content: [],
    structuredContent: { n: 1.5e300, s: null, a: [1, 'b', { c: true }] },
  },
  { content: Array.from({ length: 300 }, (_, i) => ({ type: 'text', text: `block ${i} ✓` })) },
  {
    skipped: undefined,
    content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    n: 0,
    t: '',
  },
  JSON.parse(
    '{"__proto__":{"x":1},"content":[{"type":"resource","resource":{"uri":"a://b","text":"t"}}]}',
  ) as Record<string, unknown>,
  {},
];

describe('objectJsonText', () => {
  it('writes what JSON.stringify writes, part by part', () => {
    for (const value of awkward) {
      expect(objectJsonText(value)).toBe(JSON.stringify(value));
      expect(objectJsonPieces(value).join('')).toBe(JSON.stringify(value));
    }
  });

  it('encodes an object part once: a second text of the same result reuses it', () => {
    const content = [{ type: 'text', text: 'x'.repeat(100_000) }];
    const result = { content };
    expect(objectJsonText(result)).toBe(JSON.stringify(result));
    // Held by identity: the text made first is what every later text of the part is made of.
    expect(jsonTextOnce(content)).toBe(objectJsonText(result).slice('{"content":'.length, -1));
    const wrapped = { ...result, resultType: 'complete' };
    expect(objectJsonText(wrapped)).toBe(JSON.stringify(wrapped));
  });
});
