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
 * network its CSP does not name; each server's views run on an origin of their own, whose
 * storage no other server's views see, from sandbox pages served only as the API issued them.
 */
let dashboard: Dashboard;

beforeAll(async () => {
  await buildFixtures();
  dashboard = await openDashboard({
    // As Chrome's default settings: a view's origin, another site than the dashboard's, keeps
    // storage (partitioned under the dashboard's site).
    thirdPartyStorage: true,
    run: () =>
      serveSwitchboard({
        governance: { mode: 'full-auto' },
        // The same app under two names: two servers, whose views must not share an origin.
        servers: {
          apps: { command: process.execPath, args: [appsServerBin] },
          twin: { command: process.execPath, args: [appsServerBin] },
        },
      }),
  });
  await dashboard.untilConnected(['apps', 'twin']);
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
    // The proxy is at the origin of this server's views; the view's frame shares it, and
    // has scripts and that origin's storage, nothing else.
    expect(await proxy.getAttribute('src')).toMatch(
      /^http:\/\/app-[0-9a-f]{16}\.localhost:\d+\/ui\/sandbox\.html\?/,
    );
    expect(await page.frameLocator('iframe.app-frame').locator('iframe').getAttribute('sandbox')).toBe(
      'allow-scripts allow-same-origin',
    );
    // The domain the view declared is one this host cannot provide: said under the view.
    expect(await page.getByTestId('app-domain').getAttribute('data-honoured')).toBe('false');
    expect(await page.getByTestId('app-domain').textContent()).toMatch(/cannot provide/);

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

  it('contains a hostile view: not the dashboard, nor its cookies, nor network outside its CSP', async () => {
    const { page } = dashboard;
    const findings = await runHostile('apps', 'hostile');
    // Its parent is its own sandbox proxy, on its own server's origin; the dashboard is out of reach.
    expect(findings.parentDocument).toBe('reached: Switchboard app sandbox');
    expect(findings.topDocument).toMatch(/^blocked: SecurityError/);
    // Cookies and storage are its origin's own: none of the dashboard's.
    expect(findings.cookie).toBe('reached: ');
    expect(findings.localStorage).toBe('reached: null');
    expect(findings.origin).toMatch(/^reached: http:\/\/app-[0-9a-f]{16}\.localhost:\d+$/);
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

  it("gives each server's views an origin of their own: storage kept, never another server's", async () => {
    const first = await runHostile('apps', 'apps-1');
    expect(first.markLeft).toBe('reached: apps-1');
    const twin = await runHostile('twin', 'twin-1');
    // Another server, another origin: the first's mark is not in its storage.
    expect(twin.origin).not.toBe(first.origin);
    expect(twin.storedMark).toBe('reached: null');
    expect(await dashboard.page.getByTestId('app-origin').getAttribute('data-origin')).toBe(
      twin.origin?.replace(/^reached: /, ''),
    );
    // The same server again: the same origin, with what its view left there.
    const again = await runHostile('apps', 'apps-2');
    expect(again.origin).toBe(first.origin);
    expect(again.storedMark).toBe('reached: apps-1');
    await screenshot(dashboard.page, 'app-origins');
  });

  it("serves a view's sandbox page only as the API issued it", async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__apps__show_hostile');
    await page.getByRole('button', { name: 'Run' }).click();
    await viewOf(dashboard).locator('#out[data-reported="yes"]').waitFor({ timeout: WAIT_MS });
    const issued = new URL((await page.locator('iframe.app-frame').getAttribute('src')) ?? '');
    // The same page with a wider policy than the one the token was issued for.
    const wider = new URL(issued);
    wider.searchParams.set('csp', `${issued.searchParams.get('csp')}; connect-src https://exfiltrate.test`);
    const other = await dashboard.browser.context.newPage();
    try {
      expect((await other.goto(wider.href))?.status()).toBe(403);
      // Nothing of the dashboard under a view's origin: not its pages, nor its API.
      expect((await other.goto(new URL('/ui/index.html', issued).href))?.status()).toBe(403);
      expect((await other.goto(new URL('/api/servers', issued).href))?.status()).toBe(403);
    } finally {
      await other.close();
    }
  });
});

/**
 * Runs the hostile view of `server` with `mark`, and answers what it reported (through the
 * app-only `report`, read back with `last_report`).
 */
async function runHostile(server: string, mark: string): Promise<Record<string, string>> {
  const { page } = dashboard;
  await dashboard.open(`#/tools/mcp__${server}__show_hostile`);
  await page.getByLabel('mark').fill(mark);
  await page.getByRole('button', { name: 'Run' }).click();
  await viewOf(dashboard).locator('#out[data-reported="yes"]').waitFor({ timeout: WAIT_MS });
  const answer = await dashboard.api<ApiCallResult>('POST', `/api/tools/mcp__${server}__last_report/call`, {
    arguments: {},
  });
  const first = answer.body.content[0];
  return JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, string>;
}
