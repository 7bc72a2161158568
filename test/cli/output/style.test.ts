import { describe, expect, it } from 'vitest';
import {
  colorEnabled,
  createStyle,
  printable,
  stripAnsi,
  styleFor,
  visibleLength,
} from '../../../src/cli/output/style.js';

describe('colorEnabled', () => {
  it('colours a TTY unless NO_COLOR is set to something or TERM is dumb', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({}, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    // https://no-color.org: an empty NO_COLOR does not count.
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('lets FORCE_COLOR turn it on anywhere, but not FORCE_COLOR=0', () => {
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: '0', NO_COLOR: '1' })).toBe(false);
  });
});

describe('styles', () => {
  it('wraps text in SGR sequences only when colour is on', () => {
    const on = createStyle(true);
    expect(on.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(on.bold('')).toBe('');
    expect(createStyle(false).red('x')).toBe('x');
    expect(styleFor({ isTTY: false }, {}).color).toBe(false);
  });

  it('measures text without its colour', () => {
    const on = createStyle(true);
    const text = `${on.green('ok')} ${on.dim('é')}`;
    expect(stripAnsi(text)).toBe('ok é');
    expect(visibleLength(text)).toBe(4);
  });
});

describe('printable', () => {
  it('shows control characters escaped, keeps tabs and newlines', () => {
    expect(printable('a\u001b[2Jb\tc\nd\r\ne\u0007')).toBe('a\\u001b[2Jb\tc\nd\ne\\u0007');
  });

  it('folds lines into one on request', () => {
    expect(printable('one\n  two\tthree', { singleLine: true })).toBe('one two three');
  });
});
