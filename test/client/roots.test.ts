import { describe, expect, it } from 'vitest';
import { confineRoots, resolveRoots } from '../../src/client/roots.js';

describe('resolveRoots: roots come only from configuration', () => {
  it("offers the entry's roots, else the embedding app's, else none", () => {
    const entry = [{ uri: 'file:///srv/a', name: 'a' }];
    const app = [{ uri: 'file:///workspace' }];
    expect(resolveRoots(entry, app)).toEqual(entry);
    expect(resolveRoots(undefined, app)).toEqual(app);
    expect(resolveRoots([], app)).toEqual(app);
    expect(resolveRoots(undefined)).toEqual([]);
  });

  it('never names the working directory', () => {
    const offered = JSON.stringify(resolveRoots(undefined));
    expect(offered).not.toContain(process.cwd());
  });

  it('hands out copies, so a server answer cannot change the configuration', () => {
    const entry = [{ uri: 'file:///srv/a' }];
    const roots = resolveRoots(entry);
    roots[0]!.uri = 'file:///';
    expect(entry[0]!.uri).toBe('file:///srv/a');
  });
});

describe('confineRoots: a client narrows what a server sees, never widens it', () => {
  const ceiling = [{ uri: 'file:///srv/project' }, { uri: 'git://example.com/repo' }];

  it('keeps a root equal to or below a configured one', () => {
    const offered = [
      { uri: 'file:///srv/project', name: 'same' },
      { uri: 'file:///srv/project/src' },
      { uri: 'file:///srv/project/', name: 'trailing slash' },
      { uri: 'file://localhost/srv/project/docs' },
      { uri: 'git://example.com/repo' },
    ];
    expect(confineRoots(offered, ceiling)).toEqual(offered);
  });

  it('drops a root outside, however it is spelled', () => {
    const outside = [
      'file:///',
      'file:///srv',
      'file:///srv/project-other',
      'file:///srv/projectx/secret',
      'file:///srv/project/../other',
      'file:///srv/project/%2e%2e/other',
      'file:///srv/project/..%2fother',
      'file:///srv/%70roject/../../etc',
      'file://evil.example/srv/project',
      'file:///srv/project/%00/x',
      'file:///srv/project/%zz',
      'git://example.com/repo/sub',
      'https://example.com/repo',
      'not a uri',
      '',
    ].map((uri) => ({ uri }));
    expect(confineRoots(outside, ceiling)).toEqual([]);
  });

  it('keeps a percent-encoded root that decodes to a path inside', () => {
    expect(confineRoots([{ uri: 'file:///srv/%70roject/a%20b' }], ceiling)).toHaveLength(1);
  });

  it('with no configured roots, a client gets none through', () => {
    expect(confineRoots([{ uri: 'file:///' }, { uri: 'file:///tmp' }], [])).toEqual([]);
  });

  it('a root ceiling of / admits every local file: root', () => {
    expect(confineRoots([{ uri: 'file:///etc' }, { uri: 'https://x' }], [{ uri: 'file:///' }])).toEqual([
      { uri: 'file:///etc' },
    ]);
  });

  it('passes on only uri and name', () => {
    const offered = [
      { uri: 'file:///srv/project', name: 'p', _meta: { x: 1 } } as { uri: string; name: string },
    ];
    expect(confineRoots(offered, ceiling)).toEqual([{ uri: 'file:///srv/project', name: 'p' }]);
  });
});
