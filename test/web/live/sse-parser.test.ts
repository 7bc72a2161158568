import { describe, expect, it } from 'vitest';
import { type SseMessage, SseParser } from '../../../web/live/sse-parser.js';

/** The dashboard's SSE parsing (HTML standard, "Interpreting an event stream"), without a network. */
function parseAll(chunks: readonly string[]): SseMessage[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

const STREAM =
  ': a comment\n' +
  'event: servers\n' +
  'data: {"servers":[]}\n' +
  '\n' +
  'id: 7\r\n' +
  'event: inbox\r\n' +
  'data: {"items":\r\n' +
  'data: []}\r\n' +
  '\r\n' +
  'data:no space\r' +
  '\r' +
  'event: orphan\n' +
  '\n';

const EXPECTED: SseMessage[] = [
  { event: 'servers', data: '{"servers":[]}' },
  { event: 'inbox', data: '{"items":\n[]}', id: '7' },
  { event: 'message', data: 'no space', id: '7' },
];

describe('SseParser', () => {
  it('parses events, joins data lines, keeps the last id and ignores comments and empty events', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same messages however the text is cut into chunks', () => {
    expect(parseAll([...STREAM])).toEqual(EXPECTED);
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)]), `cut at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('keeps an unfinished message until its blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push('event: log\ndata: {"text":"a"}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'log', data: '{"text":"a"}' }]);
  });

  it('reads a field without a colon as empty, and strips only one space after the colon', () => {
    expect(parseAll(['data\ndata:  two\n\n'])).toEqual([{ event: 'message', data: '\n two' }]);
  });
});
