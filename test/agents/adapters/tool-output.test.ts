import { describe, expect, it } from 'vitest';
import {
  errorOutput,
  outputParts,
  outputText,
  toAgentToolOutput,
} from '../../../src/agents/adapters/tool-output.js';
import { normalizeToolResult } from '../../../src/client/results.js';
import type { MediaRef } from '../../../src/host/media/media-store.js';

const png = Buffer.alloc(1536, 7);
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');

function ref(id: string, mimeType: string, bytes: number): MediaRef {
  return { id, fileName: `${id}.bin`, url: `http://127.0.0.1:4100/media/${id}.bin`, mimeType, bytes };
}

const mixed = normalizeToolResult({
  content: [
    { type: 'text', text: 'Two pictures:' },
    { type: 'image', mimeType: 'image/PNG', data: png.toString('base64') },
    { type: 'image', mimeType: 'image/svg+xml', data: svg.toString('base64') },
    { type: 'resource_link', uri: 'file:///r/report.pdf', name: 'report [final]' },
  ],
});

describe('toAgentToolOutput', () => {
  it('keeps text, normalizes media types and references media by the rendered URLs', () => {
    const output = toAgentToolOutput(mixed, {
      rendered: { media: [ref('a1', 'image/png', png.length), ref('b2', 'image/svg+xml', svg.length)] },
    });
    expect(output.isError).toBe(false);
    expect(output.body).toBe('Two pictures:');
    expect(output.media.map((m) => m.mimeType)).toEqual(['image/png', 'image/svg+xml']);
    expect(output.media[0]?.reference).toBe('[image/png, 1.5 KiB](http://127.0.0.1:4100/media/a1.bin)');
    expect(output.links).toEqual(['[report \\[final\\]](file:///r/report.pdf)']);
  });

  it('describes media by type and size without a rendering, and links embedded blobs to their URI', () => {
    const result = normalizeToolResult({
      content: [
        { type: 'image', mimeType: 'image/png', data: png.toString('base64') },
        { type: 'resource', resource: { uri: 'mem://b', mimeType: 'application/pdf', blob: 'AAAA' } },
      ],
    });
    const output = toAgentToolOutput(result);
    expect(output.media.map((m) => m.reference)).toEqual([
      '[image/png, 1.5 KiB, not shown]',
      '[application/pdf, 3 B](mem://b)',
    ]);
  });

  it('prints a JSON result compactly unless the server wrote its own prose', () => {
    const asJson = normalizeToolResult({
      content: [{ type: 'text', text: '{\n  "sum": 3\n}' }],
      structuredContent: { sum: 3 },
    });
    expect(toAgentToolOutput(asJson).body).toBe('{"sum":3}');
    const noText = normalizeToolResult({ content: [], structuredContent: { items: [1, 2] } });
    expect(toAgentToolOutput(noText).body).toBe('{"items":[1,2]}');
    const prose = normalizeToolResult({
      content: [{ type: 'text', text: 'line one\nline two' }],
      structuredContent: { content: 'line one\nline two' },
    });
    expect(toAgentToolOutput(prose).body).toBe('line one\nline two');
  });
});

describe('outputText', () => {
  it('puts the body, media references and links on separate lines', () => {
    const text = outputText(toAgentToolOutput(mixed), { markError: true });
    expect(text).toBe(
      [
        'Two pictures:',
        '[image/png, 1.5 KiB, not shown]',
        '[image/svg+xml, 41 B, not shown]',
        '[report \\[final\\]](file:///r/report.pdf)',
      ].join('\n'),
    );
  });

  it('marks errors only when asked, and names an empty result', () => {
    const failed = errorOutput('ENOENT: no such file');
    expect(outputText(failed, { markError: true })).toBe('Tool error: ENOENT: no such file');
    expect(outputText(failed, { markError: false })).toBe('ENOENT: no such file');
    const empty = toAgentToolOutput(normalizeToolResult({ content: [] }));
    expect(outputText(empty, { markError: true })).toBe('(empty result)');
    expect(outputText({ ...empty, isError: true }, { markError: true })).toBe('Tool error: (empty result)');
  });
});

describe('outputParts', () => {
  const output = toAgentToolOutput(mixed);

  it('inlines accepted images in order and keeps the rest as text', () => {
    const parts = outputParts(output, { maxImageBytes: 1_000_000, markError: false });
    expect(parts).toEqual([
      { type: 'text', text: 'Two pictures:' },
      { type: 'image', mimeType: 'image/png', base64: png.toString('base64') },
      { type: 'text', text: '[image/svg+xml, 41 B, not shown]\n[report \\[final\\]](file:///r/report.pdf)' },
    ]);
  });

  it('sends images over the size limit (counted as base64) as their reference', () => {
    const limit = png.toString('base64').length;
    expect(
      outputParts(output, { maxImageBytes: limit, markError: false }).some((p) => p.type === 'image'),
    ).toBe(true);
    const parts = outputParts(output, { maxImageBytes: limit - 1, markError: false });
    expect(parts).toHaveLength(1);
    expect(parts[0]).toEqual({ type: 'text', text: outputText(output, { markError: false }) });
  });

  it('leads an error with the marker, even before an image', () => {
    const imageOnly = toAgentToolOutput(
      normalizeToolResult({
        isError: true,
        content: [{ type: 'image', mimeType: 'image/png', data: png.toString('base64') }],
      }),
    );
    const parts = outputParts(imageOnly, { maxImageBytes: 1_000_000, markError: true });
    expect(parts.map((p) => p.type)).toEqual(['text', 'image']);
    expect(parts[0]).toEqual({ type: 'text', text: 'Tool error:' });
  });
});
