import { describe, expect, it } from 'vitest';
import { expandUriTemplate, parseUriTemplate } from '../../../web/resources/uri-template.js';

/** Filling resource templates: RFC 6570 level 1, with what is beyond it reported, not mangled. */
describe('parseUriTemplate', () => {
  it('finds the level-1 variables in order, each once', () => {
    const parsed = parseUriTemplate('repo://{owner}/{repo}/issues/{number}?by={owner}');
    expect(parsed.variables).toEqual(['owner', 'repo', 'number']);
    expect(parsed.unsupported).toEqual([]);
    expect(parsed.parts).toEqual([
      { kind: 'literal', text: 'repo://' },
      { kind: 'variable', name: 'owner' },
      { kind: 'literal', text: '/' },
      { kind: 'variable', name: 'repo' },
      { kind: 'literal', text: '/issues/' },
      { kind: 'variable', name: 'number' },
      { kind: 'literal', text: '?by=' },
      { kind: 'variable', name: 'owner' },
    ]);
  });

  it('accepts the variable names RFC 6570 allows: letters, digits, _, dots between, %XX', () => {
    expect(parseUriTemplate('x://{a_1}/{b.c}/{%C3%A9t%C3%A9}').variables).toEqual([
      'a_1',
      'b.c',
      '%C3%A9t%C3%A9',
    ]);
  });

  it('reports operators, lists, modifiers and an unclosed brace as unsupported', () => {
    expect(parseUriTemplate('file:///{+path}').unsupported).toEqual(['{+path}']);
    expect(parseUriTemplate('s://search{?q,lang}').unsupported).toEqual(['{?q,lang}']);
    expect(parseUriTemplate('s://{a,b}/{var:3}/{list*}/{#frag}').unsupported).toEqual([
      '{a,b}',
      '{var:3}',
      '{list*}',
      '{#frag}',
    ]);
    expect(parseUriTemplate('s://{.a}/{-x}').unsupported).toEqual(['{.a}', '{-x}']);
    const open = parseUriTemplate('s://{id}/{rest');
    expect(open.variables).toEqual(['id']);
    expect(open.unsupported).toEqual(['{rest']);
  });

  it('takes a template without variables as one literal', () => {
    expect(parseUriTemplate('kitchen://text')).toEqual({
      parts: [{ kind: 'literal', text: 'kitchen://text' }],
      variables: [],
      unsupported: [],
    });
  });
});

describe('expandUriTemplate', () => {
  it('puts each value in place of its variables', () => {
    expect(expandUriTemplate('kitchen://items/{id}', { id: '42' })).toBe('kitchen://items/42');
    expect(expandUriTemplate('repo://{owner}/{repo}#{owner}', { owner: 'ana', repo: 'notes' })).toBe(
      'repo://ana/notes#ana',
    );
  });

  it('percent-encodes everything but the unreserved characters (RFC 6570 §3.2.2)', () => {
    expect(expandUriTemplate('x://{v}', { v: 'a b/c?d#e&f=g' })).toBe('x://a%20b%2Fc%3Fd%23e%26f%3Dg');
    // encodeURIComponent would leave these five alone.
    expect(expandUriTemplate('x://{v}', { v: "!'()*" })).toBe('x://%21%27%28%29%2A');
    expect(expandUriTemplate('x://{v}', { v: 'AZaz09-._~' })).toBe('x://AZaz09-._~');
    expect(expandUriTemplate('x://{v}', { v: 'Ünïcode ✓' })).toBe('x://%C3%9Cn%C3%AFcode%20%E2%9C%93');
    // The RFC's own examples for simple expansion.
    expect(expandUriTemplate('{var}', { var: 'value' })).toBe('value');
    expect(expandUriTemplate('{hello}', { hello: 'Hello World!' })).toBe('Hello%20World%21');
  });

  it('expands a variable without a value to nothing, or keeps it when asked', () => {
    expect(expandUriTemplate('x://{a}/{b}', { a: '1' })).toBe('x://1/');
    expect(expandUriTemplate('x://{a}/{b}', { a: '1', b: '' }, { unset: 'keep' })).toBe('x://1/{b}');
    expect(expandUriTemplate('x://{a}/{b}', {}, { unset: 'keep' })).toBe('x://{a}/{b}');
  });

  it('leaves expressions beyond level 1 as written, and takes a parsed template too', () => {
    const parsed = parseUriTemplate('file:///{root}/{+path}');
    expect(expandUriTemplate(parsed, { root: 'home', path: 'a/b' })).toBe('file:///home/{+path}');
  });
});
