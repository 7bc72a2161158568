import { UriTemplate } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  contentsAsServed,
  exposedResources,
  MAPPED_RESOURCE_PREFIX,
  mappedResourceUri,
  parseMappedResourceUri,
} from '../../../src/gateway/mcp/exposed-resources.js';

const resource = (server: string, uri: string, name = uri) => ({ server, item: { uri, name } });
const template = (server: string, uriTemplate: string) => ({ server, item: { uriTemplate, name: 't' } });

describe('exposed resources', () => {
  it('passes a URI one server offers through, and maps one two servers offer under each server', () => {
    const served = exposedResources(
      [resource('a', 'kitchen://text'), resource('b', 'kitchen://text'), resource('a', 'test://static-text')],
      [],
    );
    expect([...served.resources.keys()]).toEqual([
      'switchboard://resource/a/kitchen://text',
      'switchboard://resource/b/kitchen://text',
      'test://static-text',
    ]);
    expect(served.resolve('switchboard://resource/a/kitchen://text')).toEqual({
      server: 'a',
      uri: 'kitchen://text',
    });
    expect(served.resolve('switchboard://resource/b/kitchen://text')).toEqual({
      server: 'b',
      uri: 'kitchen://text',
    });
    expect(served.resolve('test://static-text')).toEqual({ server: 'a', uri: 'test://static-text' });
    // The ambiguous original is nobody's: it must come mapped.
    expect(served.resolve('kitchen://text')).toBeUndefined();
  });

  it("maps URIs in the gateway's own scheme even when unique, so none passes for another's", () => {
    const served = exposedResources(
      [
        resource('a', 'kitchen://text'),
        resource('b', 'kitchen://text'),
        resource('c', 'switchboard://resource/a/kitchen://text'),
        resource('c', 'switchboard://servers'),
      ],
      [],
    );
    expect([...served.resources.keys()]).toEqual([
      'switchboard://resource/a/kitchen://text',
      'switchboard://resource/b/kitchen://text',
      'switchboard://resource/c/switchboard://resource/a/kitchen://text',
      'switchboard://resource/c/switchboard://servers',
    ]);
    expect(served.resolve('switchboard://resource/a/kitchen://text')).toEqual({
      server: 'a',
      uri: 'kitchen://text',
    });
    expect(served.resolve('switchboard://resource/c/switchboard://resource/a/kitchen://text')).toEqual({
      server: 'c',
      uri: 'switchboard://resource/a/kitchen://text',
    });
  });

  it('keeps the first entry when one server lists a URI twice, and does not count it as a collision', () => {
    const served = exposedResources([resource('a', 'x://1', 'first'), resource('a', 'x://1', 'second')], []);
    expect([...served.resources]).toEqual([['x://1', resource('a', 'x://1', 'first')]]);
  });

  it('maps colliding templates so that an expansion of the mapped one reads the original expansion', () => {
    const served = exposedResources(
      [],
      [
        template('a', 'kitchen://items/{id}'),
        template('b', 'kitchen://items/{id}'),
        template('a', 'solo://{x}'),
      ],
    );
    const names = [...served.templates.keys()];
    expect(names).toEqual([
      'switchboard://resource/a/kitchen://items/{id}',
      'switchboard://resource/b/kitchen://items/{id}',
      'solo://{x}',
    ]);
    // A client expands the served template; escapes in the value survive the way back.
    for (const value of ['7', 'a b/c', '%41', 'ü?#']) {
      const expanded = new UriTemplate(names[1]!).expand({ id: value });
      const original = new UriTemplate('kitchen://items/{id}').expand({ id: value });
      expect(served.resolve(expanded)).toEqual({ server: 'b', uri: original });
    }
    // An instance of the unique template passes through; one of the colliding ones is ambiguous.
    expect(served.resolve('solo://thing')).toEqual({ server: 'a', uri: 'solo://thing' });
    expect(served.resolve('kitchen://items/7')).toBeUndefined();
  });

  it('refuses a mapped URI whose server does not offer the original', () => {
    const served = exposedResources(
      [resource('a', 'kitchen://text'), resource('b', 'kitchen://text'), resource('b', 'only-b://x')],
      [template('b', 'items://{id}')],
    );
    expect(served.resolve('switchboard://resource/a/only-b://x')).toBeUndefined();
    expect(served.resolve('switchboard://resource/a/items://7')).toBeUndefined();
    expect(served.resolve('switchboard://resource/nobody/kitchen://text')).toBeUndefined();
    // A mapped form of what a server offers unmapped reaches it all the same.
    expect(served.resolve('switchboard://resource/b/only-b://x')).toEqual({ server: 'b', uri: 'only-b://x' });
    expect(served.resolve('switchboard://resource/b/items://7')).toEqual({ server: 'b', uri: 'items://7' });
    expect(served.resolve('unknown://x')).toBeUndefined();
  });

  it('ignores a template the SDK cannot parse instead of failing every lookup', () => {
    const served = exposedResources([], [template('a', 'broken://{unclosed'), template('a', 'ok://{x}')]);
    expect(served.resolve('ok://1')).toEqual({ server: 'a', uri: 'ok://1' });
    expect(served.resolve('broken://x')).toBeUndefined();
  });

  it('encodes the server segment and parses only what it made', () => {
    expect(mappedResourceUri('my.server', 'file:///tmp/a?b#c')).toBe(
      `${MAPPED_RESOURCE_PREFIX}my.server/file:///tmp/a?b#c`,
    );
    expect(parseMappedResourceUri(mappedResourceUri('a b', 'x://y'))).toEqual({
      server: 'a b',
      uri: 'x://y',
    });
    expect(parseMappedResourceUri('switchboard://resource/a/')).toBeUndefined();
    expect(parseMappedResourceUri('switchboard://resource//x://y')).toBeUndefined();
    expect(parseMappedResourceUri('switchboard://resource/%E0%A4%A/x://y')).toBeUndefined();
    expect(parseMappedResourceUri('switchboard://servers')).toBeUndefined();
  });

  it('gives read contents the URI the client asked for, leaving other parts alone', () => {
    const target = { server: 'a', uri: 'kitchen://text' };
    const asked = 'switchboard://resource/a/kitchen://text';
    const contents = [
      { uri: 'kitchen://text', text: 'one' },
      { uri: 'kitchen://text/part', text: 'two' },
    ];
    expect(contentsAsServed(contents, target, asked)).toEqual([
      { uri: asked, text: 'one' },
      { uri: 'kitchen://text/part', text: 'two' },
    ]);
    expect(contentsAsServed(contents, target, 'kitchen://text')).toEqual(contents);
  });
});
