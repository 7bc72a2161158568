import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp, ApiAppView, ApiCallResult, ApiTool } from '../../../src/gateway/api/api-types.js';
import { sandboxDomain } from '../../../src/gateway/ui/app-sandbox.js';
import { appsServerBin } from '../../fixtures/paths.js';
import { type ApiUnderTest, kitchen, startApiUnderTest } from './api-harness.js';

/**
 * The dashboard's MCP Apps API over real HTTP, on the apps fixture beside the kitchen sink:
 * tools carry their app, a call's result carries what its view needs, the view comes with its
 * CSP, the Apps page lists tools with their last result, and a view's calls reach only its own
 * server's app-visible tools — audited, a model-only or another server's tool refused.
 */
let t: ApiUnderTest;

beforeAll(async () => {
  t = await startApiUnderTest({
    servers: [{ name: 'apps', command: process.execPath, args: [appsServerBin] }, kitchen('kitchen')],
    ready: ['mcp__apps__show_counter', 'mcp__kitchen__add'],
    host: { governance: { mode: 'full-auto' }, connection: { apps: true } },
  });
});

afterAll(async () => {
  await t?.close();
});

describe('/api/apps', () => {
  it('tools say what their _meta.ui says', async () => {
    const { tools } = await t.api.json<{ tools: ApiTool[] }>('/api/tools?server=apps');
    const byName = new Map(tools.map((x) => [x.tool, x]));
    expect(byName.get('show_counter')?.app).toEqual({
      resourceUri: 'ui://counter/view.html',
      visibility: ['model', 'app'],
    });
    expect(byName.get('increment')?.app).toEqual({
      resourceUri: 'ui://counter/view.html',
      visibility: ['app'],
    });
    expect(byName.get('plain')?.app).toBeUndefined();
  });

  it('a result of a tool with a view carries it, and the Apps page opens with it', async () => {
    const before = await t.api.json<{ apps: ApiApp[] }>('/api/apps');
    expect(
      before.apps
        .filter((a) => a.server === 'apps')
        .map((a) => a.tool)
        .sort(),
    ).toEqual(['show_counter', 'show_hostile']);
    expect(before.apps.every((a) => a.last === undefined)).toBe(true);
    const called = await t.api.json<ApiCallResult>('/api/tools/mcp__apps__show_counter/call', {
      body: { arguments: { label: 'n' } },
    });
    expect(called.app).toMatchObject({
      server: 'apps',
      tool: 'mcp__apps__show_counter',
      resourceUri: 'ui://counter/view.html',
      input: { label: 'n' },
      result: { structuredContent: { count: expect.any(Number) } },
    });
    const after = await t.api.json<{ apps: ApiApp[] }>('/api/apps');
    expect(after.apps.find((a) => a.tool === 'show_counter')?.last).toMatchObject({ input: { label: 'n' } });
  });

  it('serves the view with the CSP and permissions it declared, narrowed to origins', async () => {
    const view = await t.api.json<ApiAppView>(
      '/api/apps/view?server=apps&uri=ui%3A%2F%2Fcounter%2Fview.html',
    );
    expect(view.html).toMatch(/^<!DOCTYPE html>/);
    expect(view.csp).toContain('connect-src https://api.example.test;');
    expect(view.csp).not.toMatch(/unsafe-eval|x\.test/);
    expect(view).toMatchObject({ allow: 'clipboard-write', prefersBorder: true });
    // Its server's own origin, and the domain it declared answered, not dropped.
    expect(view.sandbox.domain).toBe(sandboxDomain('apps'));
    expect(view.sandbox.token).toMatch(/^[\w-]{24}$/);
    expect(view).toMatchObject({ domain: 'counter.apps.example.test', domainHonoured: false });
    expect(view.domainNotice).toContain(`it runs at ${sandboxDomain('apps')}`);
    expect(
      (await t.api.error('/api/apps/view?server=kitchen&uri=ui%3A%2F%2Fcounter%2Fview.html', {}, 404)).code,
    ).toBe('NOT_FOUND');
    expect((await t.api.error('/api/apps/view?server=apps&uri=https%3A%2F%2Fx.test%2F', {}, 400)).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it("a view's call reaches its own server's app-visible tools, and nothing else", async () => {
    const result = await t.api.json<{ structuredContent: { count: number } }>('/api/apps/call', {
      body: { server: 'apps', name: 'increment', arguments: {} },
    });
    expect(result.structuredContent.count).toBeGreaterThan(0);
    const modelOnly = await t.api.error(
      '/api/apps/call',
      { body: { server: 'apps', name: 'secret_note', arguments: {} } },
      403,
    );
    expect(modelOnly.code).toBe('POLICY_DENIED');
    const otherServer = await t.api.error(
      '/api/apps/call',
      { body: { server: 'apps', name: 'add', arguments: { a: 1, b: 2 } } },
      404,
    );
    expect(otherServer.code).toBe('NOT_FOUND');
    const audit = (await t.host.audit({ action: 'tool_call' })).entries.map((e) => [
      e.server,
      (e.details as { tool: string }).tool,
      e.outcome,
      (e.details as { via?: string }).via,
    ]);
    expect(audit).toContainEqual(['apps', 'increment', 'ok', 'app']);
    expect(audit).toContainEqual(['apps', 'secret_note', 'denied', 'app']);
  });
});
