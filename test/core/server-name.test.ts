import { describe, expect, it } from 'vitest';
import { validServerName } from '../../src/core/config/imports/import-entry.js';
import {
  isServerName,
  SERVER_NAME_PATTERN,
  serverNameProblem,
  serverNameSchema,
  shownName,
} from '../../src/core/config/server-name.js';

/** The one rule of server names, and the pieces around it (pure). */
describe('the server-name rule', () => {
  it('takes short names of letters, digits, "_", "." and "-" that start with a letter or digit', () => {
    for (const name of ['a', 'fs', 'github-issues', 'my_server.v2', '0day', 'A'.repeat(64)])
      expect(isServerName(name), name).toBe(true);
  });

  it('says what is wrong with every other name', () => {
    expect(serverNameProblem('')).toBe('the name is empty');
    expect(serverNameProblem('a'.repeat(65))).toBe('the name has 65 characters, more than 64');
    expect(serverNameProblem('-rf')).toBe('the name starts with "-"');
    expect(serverNameProblem('..')).toBe('the name starts with "."');
    expect(serverNameProblem('__proto__')).toBe('the name starts with "_"');
    expect(serverNameProblem('a/b')).toBe('the name holds "/"');
    expect(serverNameProblem('a b')).toBe('the name holds a space');
    expect(serverNameProblem('a\u0000')).toBe('the name holds a control character (U+0000)');
    expect(serverNameProblem('caf\u00e9')).toBe('the name holds the non-ASCII character "é" (U+00E9)');
    // A look-alike: Cyrillic "а" is not Latin "a".
    expect(serverNameProblem('\u0430pi')).toMatch(/starts with the non-ASCII character/);
  });

  it('is one rule: the pattern, the check and the schema agree', () => {
    const samples = [
      'ok',
      '',
      'a'.repeat(64),
      'a'.repeat(65),
      '-x',
      'x-',
      '.x',
      'x.',
      'a b',
      'é',
      '_a',
      'a_',
    ];
    for (const name of samples) {
      expect(SERVER_NAME_PATTERN.test(name), name).toBe(isServerName(name));
      expect(serverNameSchema.safeParse(name).success, name).toBe(isServerName(name));
    }
  });

  it('quotes a long or odd name shortly in messages', () => {
    expect(shownName('weather')).toBe('weather');
    expect(shownName('a'.repeat(1000))).toBe(`${'a'.repeat(40)}… (1000 characters)`);
    expect(shownName('a\nb')).toBe('a?b');
  });

  it('repairs an imported name into a valid one', () => {
    for (const name of ['my server', '-x', '..', '__proto__', 'é', 'a'.repeat(300), '日本', '---'])
      expect(isServerName(validServerName(name)), name).toBe(true);
    expect(validServerName('my server')).toBe('my-server');
    expect(validServerName('a'.repeat(300))).toBe('a'.repeat(64));
  });
});
