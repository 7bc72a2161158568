import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../src/client/transports/line-splitter.js';

function collect(maxLineBytes = 1024) {
  const lines: string[] = [];
  const oversize: number[] = [];
  const splitter = new LineSplitter({
    maxLineBytes,
    onLine: (l) => lines.push(l.toString()),
    onOversize: (n) => oversize.push(n),
  });
  return { splitter, lines, oversize };
}

describe('LineSplitter', () => {
  it('splits lines across chunk boundaries and trims \\r', () => {
    const { splitter, lines } = collect();
    splitter.push(Buffer.from('{"a":1}\n{"b"'));
    splitter.push(Buffer.from(':2}\r\n\n{"c":3}'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    splitter.push(Buffer.from('\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(splitter.bufferedBytes).toBe(0);
  });

  it('assembles a large line from many chunks', () => {
    const { splitter, lines } = collect(50 * 1024 * 1024);
    const big = 'x'.repeat(20 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 65536) splitter.push(Buffer.from(big.slice(i, i + 65536)));
    splitter.push(Buffer.from('\n'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(big.length);
  });

  it('drops an oversize line, reports it, and recovers on the next line', () => {
    const { splitter, lines, oversize } = collect(10);
    splitter.push(Buffer.from('0123456789abcdef'));
    splitter.push(Buffer.from('more\nok\n'));
    expect(oversize).toHaveLength(1);
    expect(lines).toEqual(['ok']);
  });
});
