import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAuditEntry, ApiCallResult, ApiPage } from '../../src/gateway/api/api-types.js';
import { buildFixtures } from '../fixtures/build.js';
import { appsServerBin } from '../fixtures/paths.js';
import { screenshot, WAIT_MS } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';
import { serveSwitchboard } from './support/switchboard-process.js';

/**
 * MCP Apps in the dashboard, against the apps fixture (views on the official App SDK): a
 * tool's result opens in its view through the official AppBridge and the sandbox proxy, the
 * view gets the call's input and result, resizes, calls its app-only tool back (audited as
 * from the app) and is refused a model-only one; the Apps page opens a view with the last
 * result; a hostile view reaches neither the dashboard, nor its cookies or storage, nor any
 * network its CSP does not name.
 */
let dashboard: Dashboard;

beforeAll(async () => {
  await buildFixtures();
  dashboard = await openDashboard({
    run: () =>
      serveSwitchboard({
        governance: { mode: 'full-auto' },
        servers: { apps: { command: process.execPath, args: [appsServerBin] } },
      }),
  });
  await dashboard.untilConnected(['apps']);
});

afterAll(async () => {
  await dashboard?.close();
});

/** The view inside the sandbox proxy inside the dashboard. */
function viewOf(dashboard: Dashboard) {
  return dashboard.page.frameLocator('iframe.app-frame').frameLocator('iframe');
}

describe('MCP Apps in the dashboard', () => {
  it('renders a result in its view, which calls its own tool back through the API', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__apps__show_counter');
    await page.getByLabel('label').fill('clicks');
    await page.getByRole('button', { name: 'Run' }).click();
    const view = viewOf(dashboard);
    await view.locator('#out', { hasText: 'connected' }).waitFor({ timeout: WAIT_MS });
    expect(await view.locator('#input').textContent()).toBe('input {"label":"clicks"}');
    expect(await view.locator('#result').textContent()).toMatch(/^result \{"count":\d+\}$/);
    // Resized to what the view asked (the bridge's size-changed), from the frame's first height.
    const proxy = page.locator('iframe.app-frame');
    await expect.poll(() => proxy.getAttribute('style'), { timeout: WAIT_MS }).toMatch(/height: \d+px/);
    // The proxy is another origin; the view's own frame has scripts and nothing else.
    expect(await proxy.getAttribute('src')).toMatch(/^http:\/\/localhost:\d+\/ui\/sandbox\.html\?/);
    expect(await page.frameLocator('iframe.app-frame').locator('iframe').getAttribute('sandbox')).toBe(
      'allow-scripts',
    );

    await view.locator('#increment').click();
    await view.locator('#called').waitFor({ timeout: WAIT_MS });
    expect(await view.locator('#called').textContent()).toMatch(/^called \{"count":\d+\}$/);
    await view.locator('#refused').waitFor({ timeout: WAIT_MS });
    expect(await view.locator('#refused').textContent()).toMatch(/^secret_note refused/);
    await screenshot(page, 'app-counter');

    const audit = await dashboard.api<ApiPage<ApiAuditEntry>>('GET', '/api/audit?action=tool_call');
    const rows = audit.body.items.map((e) => [
      (e.details as { tool?: string }).tool,
      e.outcome,
      (e.details as { via?: string }).via,
    ]);
    expect(rows).toContainEqual(['increment', 'ok', 'app']);
    expect(rows).toContainEqual(['secret_note', 'denied', 'app']);
  });

  it('lists apps on a page of their own and opens one with its last result', async () => {
    const { page } = dashboard;
    await dashboard.open('#/apps');
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.getByRole('button', { name: 'Open with the last result' }).first().click();
    const view = viewOf(dashboard);
    await view.locator('#result').waitFor({ timeout: WAIT_MS });
    expect(await view.locator('#input').textContent()).toBe('input {"label":"clicks"}');
    await screenshot(page, 'apps-page');
  });

  it('contains a hostile view: no parent, no cookies or storage, no network outside its CSP', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__apps__show_hostile');
    await page.getByRole('button', { name: 'Run' }).click();
    const view = viewOf(dashboard);
    await view.locator('#out[data-reported="yes"]').waitFor({ timeout: WAIT_MS });
    const answer = await dashboard.api<ApiCallResult>('POST', '/api/tools/mcp__apps__last_report/call', {
      arguments: {},
    });
    const first = answer.body.content[0];
    const findings = JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, string>;
    expect(findings.parentDocument).toMatch(/^blocked: SecurityError/);
    expect(findings.topDocument).toMatch(/^blocked: SecurityError/);
    expect(findings.parentLocation).toMatch(/^blocked/);
    expect(findings.cookie).toMatch(/^blocked: SecurityError/);
    expect(findings.localStorage).toMatch(/^blocked: SecurityError/);
    expect(findings.origin).toBe('reached: null');
    expect(findings.popup).toBe('reached: null');
    expect(findings.dashboardApi).toMatch(/^blocked/);
    expect(findings.otherOrigin).toMatch(/^blocked/);
    expect(findings.dashboardImage).toBe('blocked: error');
    // Refused by the view's CSP (no origins declared: the restrictive default), not only by CORS.
    // (script-src too: the App SDK's zod probes for eval, which the policy refuses as well.)
    expect(findings.cspViolations?.split(',')).toEqual(expect.arrayContaining(['connect-src', 'img-src']));
    // The dashboard itself is untouched, and still signed in.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('show_hostile');
    expect((await dashboard.api('GET', '/api/session')).status).toBe(200);
    await screenshot(page, 'app-hostile');
  });
});
