import { describe, expect, it } from 'vitest';
import type { ApiContent } from '../../../src/gateway/api/api-types.js';
import { isJsonMediaType, parseMediaType, resourcePartView } from '../../../web/resources/resource-view.js';

/** How a resource's contents are shown: JSON pretty, binary images and audio inline, the rest as is. */
describe('media types', () => {
  it('takes a MIME type apart, ignoring case and parameters', () => {
    expect(parseMediaType('Application/JSON; charset=utf-8')).toEqual({
      type: 'application',
      subtype: 'json',
    });
    expect(parseMediaType('text/plain')).toEqual({ type: 'text', subtype: 'plain' });
    for (const bad of [undefined, '', 'json', 'a/b/c', '/json', 'text/'])
      expect(parseMediaType(bad)).toBeUndefined();
  });

  it('knows JSON by its subtype or a +json suffix, not by the word appearing somewhere', () => {
    for (const json of ['application/json', 'application/ld+json', 'application/vnd.api+json', 'text/json'])
      expect(isJsonMediaType(json)).toBe(true);
    for (const other of [
      'application/jsonl',
      'application/json-seq',
      'text/plain',
      'application/x-json5',
      undefined,
    ])
      expect(isJsonMediaType(other)).toBe(false);
  });
});

describe('resourcePartView', () => {
  it('pretty-prints JSON text', () => {
    const part: ApiContent = {
      type: 'text',
      text: '{"a":1,"b":[true]}',
      uri: 'x://j',
      mimeType: 'application/json',
    };
    expect(resourcePartView(part)).toEqual({
      kind: 'json',
      uri: 'x://j',
      mimeType: 'application/json',
      text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}',
    });
  });

  it('shows text that says JSON but is not as it came, and other text as text', () => {
    const broken: ApiContent = { type: 'text', text: '{not json', mimeType: 'application/json' };
    expect(resourcePartView(broken)).toEqual({ kind: 'part', part: broken });
    const plain: ApiContent = { type: 'text', text: '{"a":1}', mimeType: 'text/plain' };
    expect(resourcePartView(plain)).toEqual({ kind: 'part', part: plain });
  });

  it('shows binary images and audio inline and leaves other blobs as downloads', () => {
    const blob = (mimeType: string): ApiContent => ({
      type: 'blob',
      mimeType,
      url: '/media/x.bin',
      bytes: 10,
      uri: 'x://b',
    });
    expect(resourcePartView(blob('image/png'))).toEqual({
      kind: 'part',
      part: { ...blob('image/png'), type: 'image' },
    });
    expect(resourcePartView(blob('audio/wav'))).toEqual({
      kind: 'part',
      part: { ...blob('audio/wav'), type: 'audio' },
    });
    expect(resourcePartView(blob('application/octet-stream'))).toEqual({
      kind: 'part',
      part: blob('application/octet-stream'),
    });
    const link: ApiContent = { type: 'resource_link', uri: 'x://l', name: 'l' };
    expect(resourcePartView(link)).toEqual({ kind: 'part', part: link });
  });
});
