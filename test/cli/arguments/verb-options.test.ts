import { describe, expect, it } from 'vitest';
import { parseVerbArgs, unknownOption } from '../../../src/cli/arguments/verb-options.js';
import { UsageError } from '../../../src/cli/cli-context.js';

describe('parseVerbArgs', () => {
  it('parses options and positionals', () => {
    const { values, positionals } = parseVerbArgs(['x', '--server', 'fs', 'y=1'], {
      server: { type: 'string' },
    });
    expect(values.server).toBe('fs');
    expect(positionals).toEqual(['x', 'y=1']);
  });

  it('turns an unknown option or a missing value into a UsageError', () => {
    expect(() => parseVerbArgs(['--nope'], {})).toThrow(UsageError);
    expect(() => parseVerbArgs(['--server'], { server: { type: 'string' } })).toThrow(UsageError);
  });
});

describe('unknown options', () => {
  const options = {
    server: { type: 'string' },
    lines: { type: 'string', short: 'n' },
    follow: { type: 'boolean', short: 'f' },
  } as const;

  it('names the nearest option of the verb', () => {
    expect(() => parseVerbArgs(['--sever', 'x'], options)).toThrow(
      /Unknown option '--sever'\. Did you mean "--server"\?/,
    );
    expect(() => parseVerbArgs(['--folow'], options)).toThrow(/Did you mean "--follow"\?/);
    // Nothing near: the options it takes.
    expect(() => parseVerbArgs(['--zzzzzz'], options)).toThrow(
      /It takes: --server, --lines, -n, --follow, -f\./,
    );
  });

  it('reads values, short flags and -- as parseArgs does', () => {
    expect(unknownOption(['--server', '--sever'], options)).toBeUndefined();
    expect(unknownOption(['--server=a', '--sever'], options)).toBe('--sever');
    expect(unknownOption(['-n', '5', '-f'], options)).toBeUndefined();
    expect(unknownOption(['-x'], options)).toBe('-x');
    expect(unknownOption(['--', '--anything'], options)).toBeUndefined();
    expect(unknownOption(['a=-1', '-'], options)).toBeUndefined();
  });
});
