import { describe, expect, it } from 'vitest';
import { normalizeToolResult } from '../../src/client/results.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');

describe('normalizeToolResult', () => {
  it('classifies plain text', () => {
    const r = normalizeToolResult({
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    });
    expect(r.kind).toBe('text');
    expect(r.text).toBe('a\nb');
    expect(r.isError).toBe(false);
  });

  it('prefers structuredContent and reports schema mismatches instead of throwing', () => {
    const validate = (v: unknown) =>
      typeof (v as { sum?: unknown }).sum === 'number' ? undefined : 'sum must be a number';
    const ok = normalizeToolResult(
      { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
      validate,
    );
    expect(ok.kind).toBe('json');
    expect(ok.kind === 'json' && ok.schema).toEqual({ status: 'valid' });
    const bad = normalizeToolResult({ content: [], structuredContent: { sum: 'x' } }, validate);
    expect(bad.kind === 'json' && bad.schema).toEqual({ status: 'invalid', errors: 'sum must be a number' });
    const unchecked = normalizeToolResult({ content: [], structuredContent: [1, 2] });
    expect(unchecked.kind === 'json' && unchecked.json).toEqual([1, 2]);
    expect(unchecked.kind === 'json' && unchecked.schema.status).toBe('unchecked');
  });

  it('decodes media and embedded blobs, keeps text and links alongside', () => {
    const r = normalizeToolResult({
      content: [
        { type: 'text', text: 'caption' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'x://b', blob: Buffer.from('hi').toString('base64') } },
        { type: 'resource', resource: { uri: 'x://t', text: 'embedded text' } },
        { type: 'resource_link', uri: 'x://l', name: 'l', mimeType: 'text/plain' },
      ],
    });
    expect(r.kind).toBe('media');
    expect(r.text).toBe('caption\nembedded text');
    expect(r.media.map((m) => [m.type, m.mimeType, Buffer.from(m.data).toString('hex')])).toEqual([
      ['image', 'image/png', '89504e47'],
      ['blob', 'application/octet-stream', Buffer.from('hi').toString('hex')],
    ]);
    expect(r.media[1]!.uri).toBe('x://b');
    expect(r.links).toEqual([{ type: 'link', uri: 'x://l', name: 'l', mimeType: 'text/plain' }]);
  });

  it('decodes media bytes only when they are read, once, and shows them to spreads and comparisons', () => {
    const data = Buffer.alloc(96 * 1024, 7).toString('base64');
    const r = normalizeToolResult({ content: [{ type: 'image', data, mimeType: 'image/png' }] });
    const [part] = r.media;
    // Nothing decoded yet: the raw result is all a relaying caller reads.
    expect(Object.getOwnPropertyDescriptor(part, 'data')?.get).toBeTypeOf('function');
    expect(part!.data).toBe(part!.data);
    expect(Buffer.from(part!.data).equals(Buffer.alloc(96 * 1024, 7))).toBe(true);
    expect({ ...part }).toEqual({ type: 'image', mimeType: 'image/png', data: part!.data });
    expect(Object.keys(part!)).toEqual(['type', 'mimeType', 'data']);
  });

  it('keeps isError, and does not validate an error result', () => {
    const r = normalizeToolResult(
      { content: [{ type: 'text', text: 'bad' }], isError: true, structuredContent: { x: 1 } },
      () => 'never',
    );
    expect(r.isError).toBe(true);
    expect(r.kind === 'json' && r.schema.status).toBe('unchecked');
  });
});
