import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../../src/host/logs/log-line.js';
import { lastLines, parseLogLine } from '../../../src/host/logs/log-parse.js';

describe('log lines, read back', () => {
  it('reads back what the host writes', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const line = formatLogLine({ at, source: 'stderr', level: 'info', text: 'two\nlines' }).trimEnd();
    expect(parseLogLine(line)).toEqual({ at: at.toISOString(), tag: 'stderr', text: 'two\\nlines' });
    expect(parseLogLine(formatLogLine({ at, source: 'server', level: 'error', text: '' }).trimEnd())).toEqual(
      {
        at: at.toISOString(),
        tag: 'error',
        text: '',
      },
    );
    expect(parseLogLine('not a log line')).toEqual({ text: 'not a log line' });
  });

  it('takes the last lines of a text', () => {
    expect(lastLines('a\nb\nc\n', 2)).toEqual(['b', 'c']);
    expect(lastLines('a\nb', 5)).toEqual(['a', 'b']);
    expect(lastLines('', 5)).toEqual([]);
    expect(lastLines('a\n', 0)).toEqual([]);
  });
});
