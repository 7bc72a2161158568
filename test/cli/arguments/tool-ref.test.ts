import { describe, expect, it } from 'vitest';
import { splitServerRef } from '../../../src/cli/arguments/tool-ref.js';

describe('splitServerRef', () => {
  const servers = ['gh', 'gh.enterprise', 'my_srv', 'a-b'];

  it('splits server.tool at the longest server name that fits', () => {
    expect(splitServerRef('gh.search', servers)).toEqual({ server: 'gh', name: 'search', form: 'dotted' });
    expect(splitServerRef('gh.enterprise.search', servers)).toEqual({
      server: 'gh.enterprise',
      name: 'search',
      form: 'dotted',
    });
    expect(splitServerRef('gh.v2.search', servers)).toEqual({
      server: 'gh',
      name: 'v2.search',
      form: 'dotted',
    });
  });

  it('reads mcp__server__tool with the catalog name of the server', () => {
    expect(splitServerRef('mcp__my_srv__do_it', servers)).toEqual({
      server: 'my_srv',
      name: 'do_it',
      form: 'qualified',
    });
    // Dots in server names become "_" in catalog names.
    expect(splitServerRef('mcp__gh_enterprise__search', servers)).toEqual({
      server: 'gh.enterprise',
      name: 'search',
      form: 'qualified',
    });
    expect(splitServerRef('mcp__a-b__x', servers)?.server).toBe('a-b');
  });

  it('names no server for a bare name, an unknown server or an empty tool', () => {
    expect(splitServerRef('search', servers)).toBeUndefined();
    expect(splitServerRef('other.search', servers)).toBeUndefined();
    expect(splitServerRef('gh.', servers)).toBeUndefined();
    expect(splitServerRef('mcp__gh__', servers)).toBeUndefined();
    expect(splitServerRef('mcp__nope__x', servers)).toBeUndefined();
  });
});
