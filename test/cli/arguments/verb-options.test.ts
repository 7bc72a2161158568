import { describe, expect, it } from 'vitest';
import { parseVerbArgs } from '../../../src/cli/arguments/verb-options.js';
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
