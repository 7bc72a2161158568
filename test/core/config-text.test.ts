import { describe, expect, it } from 'vitest';
import {
  FOREIGN_CONFIG_LIMITS,
  lineAndColumn,
  OWN_CONFIG_LIMITS,
  parseConfigText,
} from '../../src/core/config/config-text.js';
import { thrown } from '../helpers/rejection.js';

/** Reading config text with bounds: depth, keys, size; where each refusal points. */
describe('parseConfigText', () => {
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it('takes 64 levels of nesting in our files and refuses the 65th where it opens', () => {
    expect(() => parseConfigText(nested(64), 'f.json')).not.toThrow();
    const e = thrown(() => parseConfigText(`\n  ${nested(65)}`, 'f.json'));
    expect(e.message).toBe(
      'f.json:2:67: objects and arrays nest deeper than 64 levels here. A config needs only a few levels: check the file for a run of "[" or "{" and remove it.',
    );
    // Brackets inside strings and comments are not nesting.
    expect(() =>
      parseConfigText(`{"a": "${'['.repeat(500)}" /* ${'{'.repeat(500)} */}`, 'f.json'),
    ).not.toThrow();
    expect(() => parseConfigText(nested(512), 'f.json', FOREIGN_CONFIG_LIMITS)).not.toThrow();
  });

  it('refuses a key given twice, naming both lines, and __proto__ anywhere in our files', () => {
    const e = thrown(() => parseConfigText('{\n "servers": {\n  "a": {},\n  "a": {}\n }\n}', 'f.json'));
    expect(e.message).toBe(
      'f.json:4:3: the key "a" appears twice in one object (first at line 3). Keep one of the two.',
    );
    expect(e.details).toMatchObject({ file: 'f.json', line: 4, column: 3 });
    expect(thrown(() => parseConfigText('{"x": {"__proto__": 1}}', 'f.json')).message).toMatch(
      /^f\.json:1:8: the key "__proto__" is not allowed/,
    );
  });

  it("reads other clients' files as they do: the last duplicate wins, __proto__ stays an own key", () => {
    const value = parseConfigText(
      '{"a": 1, "a": 2, "__proto__": {"polluted": true}}',
      'c.json',
      FOREIGN_CONFIG_LIMITS,
    ) as Record<string, unknown>;
    expect(value.a).toBe(2);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a text past the size bound before parsing it', () => {
    const e = thrown(() => parseConfigText(' '.repeat(OWN_CONFIG_LIMITS.maxChars + 1), 'f.json'));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/^f\.json: the file has 4194305 characters, more than the 4194304/);
  });

  it('counts lines across \\n, \\r\\n and \\r', () => {
    expect(lineAndColumn('a\r\nb\rc\nd', 7)).toEqual({ line: 4, column: 1 });
    expect(lineAndColumn('abc', 2)).toEqual({ line: 1, column: 3 });
  });
});
