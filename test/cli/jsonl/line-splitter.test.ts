import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/cli/jsonl/line-splitter.js';

describe('LineSplitter', () => {
  it('joins lines split across chunks and accepts CRLF endings', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('{"op":')).toEqual([]);
    expect(splitter.push('"mcp_list"}\r\n{"op"')).toEqual([{ kind: 'line', text: '{"op":"mcp_list"}' }]);
    expect(splitter.push(':"x"}\n')).toEqual([{ kind: 'line', text: '{"op":"x"}' }]);
  });

  it('skips blank lines and flushes a last line without a newline at the end', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('\n  \n\r\na\n\nb')).toEqual([{ kind: 'line', text: 'a' }]);
    expect(splitter.end()).toEqual([{ kind: 'line', text: 'b' }]);
    expect(splitter.end()).toEqual([]);
  });

  it('drops a line past the cap, reports its length, and reads the next line normally', () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push('0123456')).toEqual([]);
    expect(splitter.push('789abc')).toEqual([]);
    expect(splitter.push('def\nok\n')).toEqual([
      { kind: 'too_long', length: 16 },
      { kind: 'line', text: 'ok' },
    ]);
    expect(splitter.push('0123456789\n')).toEqual([{ kind: 'line', text: '0123456789' }]);
  });
});
