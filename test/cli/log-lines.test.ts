import { describe, expect, it } from 'vitest';
import { LineCollector } from '../../src/cli/log-lines.js';

describe('log lines', () => {
  it('hands out complete lines only, across chunks', () => {
    const lines = new LineCollector();
    expect(lines.push('one\ntw')).toEqual(['one']);
    expect(lines.push('o')).toEqual([]);
    expect(lines.push('\nthree\n\nfo')).toEqual(['two', 'three', '']);
    expect(lines.flush()).toEqual(['fo']);
    expect(lines.flush()).toEqual([]);
  });
});
