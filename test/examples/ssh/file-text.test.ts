import { describe, expect, it } from 'vitest';
import { formatHunks, lineChanges } from '../../../examples/servers/ssh/diff-hunks.js';
import { findAll, replaceExact, replaceLines, textLines } from '../../../examples/servers/ssh/edit-text.js';
import { capText } from '../../../examples/servers/ssh/fs-tools.js';
import { snippet } from '../../../examples/servers/ssh/grep-files.js';
import { LineMatcher } from '../../../examples/servers/ssh/line-matcher.js';
import { entryLine } from '../../../examples/servers/ssh/list-files.js';
import { remotePath } from '../../../examples/servers/ssh/read-file.js';
import { globMatcher } from '../../../examples/servers/ssh/remote-walk.js';
import {
  cutLine,
  dominantBreak,
  eolStyle,
  isUtf8,
  lineAt,
  looksBinary,
  numbered,
  splitLines,
} from '../../../examples/servers/ssh/text-lines.js';

/** The file tools' pure pieces: lines, the two edits, the diff hunks, matching, formats. */
const buf = (s: string) => Buffer.from(s, 'utf8');

describe('lines', () => {
  it('splits on LF and CRLF with byte offsets, and tells the styles apart', () => {
    const data = buf('a\r\nbb\nc');
    const lines = splitLines(data);
    expect(lines).toEqual([
      { start: 0, end: 1, next: 3 },
      { start: 3, end: 5, next: 6 },
      { start: 6, end: 7, next: 7 },
    ]);
    expect(eolStyle(lines)).toBe('mixed');
    expect(eolStyle(splitLines(buf('a\r\nb\r\n')))).toBe('crlf');
    expect(eolStyle(splitLines(buf('one line')))).toBe('none');
    expect(dominantBreak(splitLines(buf('a\r\nb\r\nc\n')))).toBe('\r\n');
    expect(dominantBreak(splitLines(buf('a\nb\r\n')))).toBe('\n');
    expect(splitLines(buf(''))).toEqual([]);
    expect(splitLines(buf('\n'))).toEqual([{ start: 0, end: 0, next: 1 }]);
    expect(lineAt(lines, 0)).toBe(0);
    expect(lineAt(lines, 4)).toBe(1);
    expect(lineAt(lines, 7)).toBe(2);
  });

  it('spots binary data and invalid UTF-8, numbers and cuts lines', () => {
    expect(looksBinary(Buffer.from([1, 2, 0, 3]))).toBe(true);
    expect(looksBinary(Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from([0])]))).toBe(false);
    expect(isUtf8(buf('café'))).toBe(true);
    expect(isUtf8(Buffer.from([0x63, 0xe9]))).toBe(false);
    expect(numbered(7, 'x')).toBe('     7\tx');
    expect(numbered(1234567, 'x')).toBe('1234567\tx');
    expect(cutLine('abcdef', 3)).toBe('abc… [3 more characters]');
    expect(remotePath('~/x/y')).toBe('x/y');
    expect(remotePath('~')).toBe('.');
    expect(remotePath('/etc/hosts')).toBe('/etc/hosts');
  });
});

describe('replaceExact (edit_file)', () => {
  it('needs exactly one occurrence unless replace_all, and names the lines of several', () => {
    const data = buf('x=1\ny=2\nx=1\n');
    expect(replaceExact(data, 'x=1', 'x=2', false)).toEqual({ kind: 'ambiguous', lines: [1, 3] });
    const all = replaceExact(data, 'x=1', 'x=2', true);
    expect(all.kind === 'edited' && all.data.toString()).toBe('x=2\ny=2\nx=2\n');
    expect(replaceExact(data, 'q', 'r', false).kind).toBe('no-match');
    expect(replaceExact(data, '', 'r', false).kind).toBe('invalid');
    expect(replaceExact(data, 'y', 'y', false).kind).toBe('invalid');
    expect(findAll(buf('aaaa'), buf('aa'))).toEqual([0, 2]);
  });

  it("reads \\n as the file's CRLF, writes new lines with CRLF there, and leaves other bytes alone", () => {
    const crlf = replaceExact(buf('a\r\nb\r\nc\r\n'), 'a\nb', 'A\nB', false);
    expect(crlf.kind === 'edited' && crlf.data.toString()).toBe('A\r\nB\r\nc\r\n');
    const grow = replaceExact(buf('a\r\nb\r\n'), 'b', 'b\nc', false);
    expect(grow.kind === 'edited' && grow.data.toString()).toBe('a\r\nb\r\nc\r\n');
    const raw = Buffer.from([0xff, 0x0a, 0x61, 0x0a, 0xfe]);
    const kept = replaceExact(raw, 'a', 'bé', false);
    expect(kept.kind === 'edited' && [...kept.data]).toEqual([0xff, 0x0a, 0x62, 0xc3, 0xa9, 0x0a, 0xfe]);
  });
});

describe('replaceLines', () => {
  const file = buf('1\n2\n3\n');
  const run = (data: Buffer, s: number, e: number, t: string) => {
    const r = replaceLines(data, s, e, t);
    return r.kind === 'edited' ? r.data.toString() : r.kind;
  };

  it('replaces, inserts (end = start - 1), appends, deletes, and refuses ranges outside the file', () => {
    expect(run(file, 2, 2, 'two')).toBe('1\ntwo\n3\n');
    expect(run(file, 2, 3, 'x\ny\nz\n')).toBe('1\nx\ny\nz\n');
    expect(run(file, 1, 0, 'zero')).toBe('zero\n1\n2\n3\n');
    expect(run(file, 4, 3, 'four')).toBe('1\n2\n3\nfour\n');
    expect(run(file, 1, 3, '')).toBe('');
    expect(run(buf('a\nb'), 3, 2, 'c')).toBe('a\nb\nc');
    expect(run(buf('a\nb'), 2, 2, 'B')).toBe('a\nB');
    expect(run(buf(''), 1, 0, 'first')).toBe('first\n');
    expect(run(file, 5, 5, 'x')).toBe('invalid');
    expect(run(file, 2, 0, 'x')).toBe('invalid');
    expect(run(file, 2, 4, 'x')).toBe('invalid');
    expect(run(file, 2, 2, '2')).toBe('invalid');
    expect(run(file, 2, 1, '')).toBe('invalid');
    expect(textLines('a\n')).toEqual(['a']);
    expect(textLines('\n')).toEqual(['']);
    expect(textLines('a\r\nb')).toEqual(['a', 'b']);
  });
});

describe('diff hunks', () => {
  it('widens byte changes to whole lines and numbers every line as read_file would', () => {
    const old = buf('a\nbcd\ne\n');
    const r = replaceExact(old, 'c', 'X\nY', false);
    if (r.kind !== 'edited') throw new Error(r.kind);
    expect(lineChanges(old, r.data, r.changes)).toEqual([{ oldFrom: 1, oldTo: 2, newFrom: 1, newTo: 3 }]);
    expect(formatHunks(old, r.data, lineChanges(old, r.data, r.changes)).split('\n')).toEqual([
      '@@ -1,3 +1,4 @@',
      '      1\ta',
      '-     2\tbcd',
      '+     2\tbX',
      '+     3\tYd',
      '      4\te',
    ]);
  });

  it('merges changes whose context touches and caps the lines shown', () => {
    const old = buf(`${Array.from({ length: 40 }, (_, i) => `l${i + 1}`).join('\n')}\n`);
    const r = replaceExact(old, 'l1\n', 'L1\n', true); // l1 only: l10.. do not end in "l1\n"
    if (r.kind !== 'edited') throw new Error(r.kind);
    const two = replaceExact(old, '\nl5\n', '\nL5\n', false);
    if (two.kind !== 'edited') throw new Error(two.kind);
    const both = replaceExact(r.data, '\nl5\n', '\nL5\n', false);
    if (both.kind !== 'edited') throw new Error(both.kind);
    const hunks = formatHunks(old, both.data, lineChanges(old, both.data, [...r.changes, ...both.changes]));
    expect(hunks.split('\n').filter((l) => l.startsWith('@@'))).toHaveLength(1);
    const capped = formatHunks(old, both.data, lineChanges(old, both.data, [...r.changes, ...both.changes]), {
      maxLines: 3,
    });
    expect(capped.split('\n')).toHaveLength(4);
    expect(capped).toContain('more diff lines not shown');
  });

  it('always describes the edit exactly: a seeded fuzzer over files, line breaks and both edits', () => {
    // mulberry32: a small seeded generator, so a failure names a reproducible case.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const words = ['a', 'b', 'ab', '', 'é', 'x y', '\t', 'ba'];
    let edited = 0;
    for (let round = 0; round < 400; round++) {
      const count = Math.floor(random() * 8);
      const eol = pick(['\n', '\r\n']);
      let text = Array.from({ length: count }, () => pick(words) + pick(words)).join(eol);
      if (count > 0 && random() < 0.7) text += eol;
      const old = buf(text);
      const outcome =
        random() < 0.5 && text.length > 0
          ? (() => {
              const from = Math.floor(random() * text.length);
              const piece = text.slice(from, from + 1 + Math.floor(random() * 5)).replace(/\r/g, '');
              return replaceExact(old, piece, pick(words) + pick(['', '\n']) + pick(words), true);
            })()
          : (() => {
              const start = 1 + Math.floor(random() * (count + 1));
              const end = start - 1 + Math.floor(random() * (count - start + 2));
              return replaceLines(
                old,
                start,
                end,
                Array.from({ length: Math.floor(random() * 3) }, () => pick(words)).join('\n'),
              );
            })();
      if (outcome.kind !== 'edited') continue;
      edited++;
      const full = formatHunks(old, outcome.data, lineChanges(old, outcome.data, outcome.changes), {
        context: 1e9,
        maxLines: 1e9,
      });
      const body = full.split('\n').filter((l) => !l.startsWith('@@'));
      const texts = (marks: string) =>
        body.filter((l) => marks.includes(l[0]!)).map((l) => l.slice(1).replace(/^ *\d+\t/, ''));
      const lines = (data: Buffer) => splitLines(data).map((l) => data.toString('utf8', l.start, l.end));
      const context = `round ${round}: ${JSON.stringify(text)} -> ${JSON.stringify(outcome.data.toString())}`;
      expect(texts(' -'), context).toEqual(lines(old));
      expect(texts(' +'), context).toEqual(lines(outcome.data));
      // The numbers shown are each side's own line numbers, in order.
      const plus = body.filter((l) => l[0] !== '-').map((l) => Number(l.slice(1).split('\t')[0]));
      expect(plus, context).toEqual(plus.map((_, i) => i + 1));
    }
    expect(edited).toBeGreaterThan(150);
  });
});

describe('matching and formats', () => {
  it('finds lines with a time bound, and refuses a malformed pattern', () => {
    const m = new LineMatcher('^b', { ignoreCase: true });
    expect(m.scan('a\nB\nb\r\n', 10, 1000, 'f')).toEqual([
      { line: 1, column: 0 },
      { line: 2, column: 0 },
    ]);
    expect(new LineMatcher('x$', { ignoreCase: false }).scan('x\r\nx', 1, 1000, 'f')).toHaveLength(1);
    expect(() => new LineMatcher('(', { ignoreCase: false })).toThrow(
      /not a valid JavaScript regular expression/,
    );
    const slow = new LineMatcher('^(a+)+$', { ignoreCase: false });
    expect(() => slow.scan(`${'a'.repeat(40)}b`, 1, 200, 'evil.txt')).toThrow(
      /took more than 0.2 s on evil.txt/,
    );
  });

  it('shows long hit lines around the match, and caps output on a line boundary', () => {
    const line = `${'x'.repeat(1000)}NEEDLE${'y'.repeat(1000)}`;
    const shown = snippet(line, 1000);
    expect(shown).toContain('NEEDLE');
    expect(shown.startsWith('…') && shown.endsWith('…')).toBe(true);
    expect(snippet('short', 0)).toBe('short');
    const capped = capText('aaaa\nbbbb\ncccc\n', 12);
    expect(capped).toBe('aaaa\nbbbb\n[output cut at 12 bytes (SSH_MCP_OUTPUT_MAX); narrow the request]');
  });

  it('lists entries in fixed columns and matches globs by name or by path', () => {
    expect(entryLine({ kind: 'file', size: 12, mtime: 0, rel: 'a.txt' })).toBe(
      'file           12  1970-01-01 00:00  a.txt',
    );
    expect(entryLine({ kind: 'link', size: 7, mtime: 0, rel: 'l', target: '/etc' })).toBe(
      'link            -  1970-01-01 00:00  l -> /etc',
    );
    const byName = globMatcher('*.ts')!;
    expect([byName('a.ts'), byName('src/deep/b.ts'), byName('a.tsx'), byName('.hidden.ts')]).toEqual([
      true,
      true,
      false,
      true,
    ]);
    const byPath = globMatcher('src/**/*.ts')!;
    expect([byPath('src/a.ts'), byPath('src/x/y/b.ts'), byPath('lib/a.ts')]).toEqual([true, true, false]);
    expect(globMatcher(undefined)).toBeUndefined();
  });
});
