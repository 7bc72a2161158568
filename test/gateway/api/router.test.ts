import { describe, expect, it } from 'vitest';
import { pathParams, Router } from '../../../src/gateway/api/router.js';

const routes = [
  { method: 'GET', path: '/api/servers' },
  { method: 'POST', path: '/api/servers' },
  { method: 'GET', path: '/api/servers/{name}' },
  { method: 'DELETE', path: '/api/servers/{name}' },
  { method: 'POST', path: '/api/servers/{name}/enable' },
  { method: 'GET', path: '/api/resources/{uri}' },
  { method: 'GET', path: '/api/resources/read' },
  { method: 'POST', path: '/api/prompts/{server}/{name}' },
] as const;

describe('the API router', () => {
  const router = new Router(routes);

  it('matches literal paths and {param} segments, decoding them', () => {
    expect(router.match('GET', '/api/servers')).toMatchObject({ kind: 'found', params: {} });
    expect(router.match('POST', '/api/servers/a%20b/enable')).toMatchObject({
      kind: 'found',
      route: { path: '/api/servers/{name}/enable' },
      params: { name: 'a b' },
    });
    expect(router.match('POST', '/api/prompts/kitchen/greet')).toMatchObject({
      params: { server: 'kitchen', name: 'greet' },
    });
  });

  it('prefers the template with more literal segments', () => {
    expect(router.match('GET', '/api/resources/read')).toMatchObject({
      route: { path: '/api/resources/read' },
    });
    expect(router.match('GET', '/api/resources/other')).toMatchObject({
      route: { path: '/api/resources/{uri}' },
      params: { uri: 'other' },
    });
  });

  it('says which methods a known path takes, and not found for unknown ones', () => {
    expect(router.match('PUT', '/api/servers/x')).toEqual({
      kind: 'method_not_allowed',
      allow: ['GET', 'DELETE'],
    });
    expect(router.match('GET', '/api/servers/x/enable')).toEqual({
      kind: 'method_not_allowed',
      allow: ['POST'],
    });
    expect(router.match('GET', '/api/servers/x/y/z')).toEqual({ kind: 'not_found' });
    expect(router.match('GET', '/api/servers//enable')).toEqual({ kind: 'not_found' });
    expect(router.match('GET', '/api/servers/%E0%A4%A')).toEqual({ kind: 'bad_path', segment: '%E0%A4%A' });
  });

  it("refuses two routes for one method and path, and lists a template's params", () => {
    expect(() => new Router([...routes, { method: 'GET', path: '/api/servers/{other}' }])).toThrow(
      /Two API routes/,
    );
    expect(pathParams('/api/prompts/{server}/{name}')).toEqual(['server', 'name']);
  });
});
