import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naturalWidth, screenshot, WAIT_MS } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';
import { serveSwitchboard, tsxServer } from './support/switchboard-process.js';

/**
 * A gateway that wants a bearer token (`switchboard serve`, auth mode "bearer"): the dashboard
 * asks for the token, keeps it for the tab, sends it on every request and stream, and loads
 * saved media with it (an <img> cannot send the header, so the bytes become a blob: URL).
 */
const TOKEN = randomBytes(24).toString('base64url');
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard({
    run: () =>
      serveSwitchboard({
        servers: { weather: tsxServer('examples/servers/demo-weather.ts', { trust: 'trusted' }) },
        gateway: {
          auth: {
            mode: 'bearer',
            tokens: [{ id: 'browser-test', sha256: createHash('sha256').update(TOKEN).digest('hex') }],
          },
        },
      }),
  });
});

afterAll(async () => {
  await dashboard?.close();
});

describe('a gateway with a bearer token', () => {
  it('asks for the token, refuses a wrong one, and works with the right one', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers', { live: false });
    await page.getByRole('heading', { name: 'This gateway needs an access token' }).waitFor();
    expect(await page.getByTestId('connection').textContent()).toBe('Token needed');
    const field = page.getByLabel('Access token', { exact: true });
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill('not-the-token');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByText('The gateway did not accept that token.').waitFor();
    await screenshot(page, 'token-form');

    await page.getByLabel('Access token', { exact: true }).fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    await page.locator('[data-testid="server-weather"][data-state="connected"]').waitFor();
    expect(await page.getByText('browser-test', { exact: true }).count()).toBe(1);

    // The token lasts for the tab: a reload goes straight to the page.
    await page.reload();
    await page.locator('[data-testid="server-weather"][data-state="connected"]').waitFor();
    expect(await page.getByLabel('Access token', { exact: true }).count()).toBe(0);
  });

  it('loads a result image through a blob: URL fetched with the token', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__weather__forecast_chart');
    await page.getByLabel('city').fill('Bergen');
    await page.getByRole('button', { name: 'Run' }).click();
    const image = page.getByTestId('result-image');
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    // Loaded and decoded: a broken image has a natural width of 0.
    await expect.poll(() => naturalWidth(image), { timeout: WAIT_MS }).toBeGreaterThan(0);
    await screenshot(page, 'token-media');
  });
});
