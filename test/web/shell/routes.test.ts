import { describe, expect, it } from 'vitest';
import { parseRoute, type Route, routeHref } from '../../../web/shell/routes.js';

describe('dashboard routes', () => {
  it.each<[string, Route]>([
    ['', { page: 'servers' }],
    ['#/', { page: 'servers' }],
    ['#/servers', { page: 'servers' }],
    ['#/tools', { page: 'tools' }],
    ['#/tools/mcp__weather__get_forecast', { page: 'tools', tool: 'mcp__weather__get_forecast' }],
    ['#/inbox', { page: 'inbox' }],
    ['#/logs/weather', { page: 'logs', server: 'weather' }],
    ['#/events', { page: 'events' }],
    ['#/audit', { page: 'audit' }],
    ['#/nowhere/at/all', { page: 'servers' }],
    ['#/tools/%E0%A4%A', { page: 'tools' }],
  ])('reads %s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it('writes links that read back as the same route, whatever the name holds', () => {
    for (const route of [
      { page: 'tools', tool: 'mcp__a b__c/d?e#f' },
      { page: 'logs', server: 'ünïcode' },
      { page: 'inbox' },
    ] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
    expect(routeHref({ page: 'tools', tool: 'a/b' })).toBe('#/tools/a%2Fb');
  });
});
