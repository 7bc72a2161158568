import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';

/** The Logs page: a server's tail, and "Follow" adding new lines as the server writes them. */
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard();
  await dashboard.untilConnected(['weather']);
});

afterAll(async () => {
  await dashboard?.close();
});

describe('the Logs page', () => {
  it("shows a server's log, and follows new lines live", async () => {
    const { page } = dashboard;
    // The server is up (beforeAll), so its log has both lines of its start.
    await dashboard.open('#/servers');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).click();
    await page.getByLabel('Server').selectOption('weather');
    await page.getByRole('heading', { level: 1, name: 'Logs of weather' }).waitFor();
    expect(page.url()).toMatch(/#\/logs\/weather$/);
    // The tail: the demo server's start, as the host logged it.
    const lines = page.getByTestId('log-line');
    const connected = lines.filter({ hasText: /connected \(\d{4}-\d{2}-\d{2}\)/ });
    await connected.first().waitFor();
    expect(await lines.filter({ hasText: 'started process' }).count()).toBe(1);

    await page.getByRole('button', { name: 'Follow' }).click();
    expect(await page.getByRole('button', { name: 'Follow' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('log-status').getByText('Following new lines.').waitFor();
    // The follow stream starts with the same tail, so nothing is doubled.
    await connected.first().waitFor();
    expect(await lines.filter({ hasText: 'started process' }).count()).toBe(1);

    // A reload restarts the server: its new lines arrive while the page just watches.
    const reload = await dashboard.api('POST', '/api/servers/weather/reload');
    expect(reload.status).toBe(200);
    await lines.filter({ hasText: 'started process' }).nth(1).waitFor();
    await connected.nth(1).waitFor();
    // Following keeps the newest line in view.
    const box = page.getByRole('region', { name: 'Log lines of weather' });
    const gap = await box.evaluate((el) => {
      const e = el as unknown as { scrollHeight: number; scrollTop: number; clientHeight: number };
      return e.scrollHeight - e.scrollTop - e.clientHeight;
    });
    expect(gap).toBeLessThan(24);
    await screenshot(page, 'logs');
    expect(dashboard.browser.errors).toEqual([]);
  });
});
