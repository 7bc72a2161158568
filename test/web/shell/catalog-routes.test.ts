import { describe, expect, it } from 'vitest';
import { PAGES, parseRoute, type Route, routeHref } from '../../../web/shell/routes.js';

/** The Resources and Prompts pages' routes: `#/resources`, `#/prompts`, `#/prompts/<server>/<prompt>`. */
describe('resource and prompt routes', () => {
  it.each<[string, Route]>([
    ['#/resources', { page: 'resources' }],
    ['#/resources/anything', { page: 'resources' }],
    ['#/prompts', { page: 'prompts' }],
    ['#/prompts/kitchen', { page: 'prompts' }],
    ['#/prompts/kitchen/greet', { page: 'prompts', server: 'kitchen', prompt: 'greet' }],
    ['#/prompts/my%20server/a%2Fb', { page: 'prompts', server: 'my server', prompt: 'a/b' }],
    ['#/prompts/kitchen/a/b', { page: 'prompts', server: 'kitchen', prompt: 'a/b' }],
    ['#/prompts/%E0%A4%A/greet', { page: 'prompts' }],
  ])('reads %s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it('writes prompt links that read back as the same route', () => {
    for (const route of [
      { page: 'prompts', server: 'a/b c', prompt: 'x?y#z/w' },
      { page: 'prompts', server: 'ünï', prompt: '%41' },
      { page: 'prompts' },
      { page: 'resources' },
    ] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
    expect(routeHref({ page: 'prompts', server: 'kitchen', prompt: 'greet' })).toBe(
      '#/prompts/kitchen/greet',
    );
  });

  it('puts Resources and Prompts in the navigation right after Tools', () => {
    const pages = PAGES.map((p) => p.page);
    expect(pages.slice(pages.indexOf('tools'), pages.indexOf('tools') + 3)).toEqual([
      'tools',
      'resources',
      'prompts',
    ]);
  });
});
