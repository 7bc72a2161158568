import { describe, expect, it } from 'vitest';
import { matchesUriTemplate } from '../../../src/cli/arguments/uri-template.js';

describe('matchesUriTemplate', () => {
  it('matches simple expressions within one path segment', () => {
    expect(matchesUriTemplate('kitchen://items/{id}', 'kitchen://items/42')).toBe(true);
    expect(matchesUriTemplate('kitchen://items/{id}', 'kitchen://items/4/2')).toBe(false);
    expect(matchesUriTemplate('kitchen://items/{id}', 'kitchen://other/42')).toBe(false);
    expect(matchesUriTemplate('repo://{owner}/{repo}/issues', 'repo://me/x/issues')).toBe(true);
  });

  it('matches reserved, fragment, path, label and query expansions', () => {
    expect(matchesUriTemplate('file:///{+path}', 'file:///home/me/notes.md')).toBe(true);
    expect(matchesUriTemplate('doc://a{#section}', 'doc://a#intro')).toBe(true);
    expect(matchesUriTemplate('doc://a{#section}', 'doc://a')).toBe(true);
    expect(matchesUriTemplate('fs://root{/segments*}', 'fs://root/a/b/c')).toBe(true);
    expect(matchesUriTemplate('img://x{.ext}', 'img://x.png')).toBe(true);
    expect(matchesUriTemplate('api://search{?q,limit}', 'api://search?q=a&limit=2')).toBe(true);
    expect(matchesUriTemplate('api://search{?q}{&page}', 'api://search?q=a&page=2')).toBe(true);
    expect(matchesUriTemplate('api://search{?q}', 'api://other?q=a')).toBe(false);
  });

  it('treats the literal parts literally, regex characters included', () => {
    expect(matchesUriTemplate('a+b://x.y/{id}', 'a+b://x.y/1')).toBe(true);
    expect(matchesUriTemplate('a+b://x.y/{id}', 'aab://xzy/1')).toBe(false);
    expect(matchesUriTemplate('plain://uri', 'plain://uri')).toBe(true);
  });

  it('matches nothing for a template it cannot read', () => {
    expect(matchesUriTemplate('broken://{id', 'broken://{id')).toBe(false);
  });
});
