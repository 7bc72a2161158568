import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiCallStats } from '../../src/gateway/api/api-types.js';
import { screenshot } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';

/**
 * The recent-calls charts of a real `switchboard start` (no OpenTelemetry configured): after
 * a known number of tool calls through the API, the servers page and the Metrics page draw
 * them — call rate, p50/p99 and error rate — from `GET /api/metrics/calls`, and the figures
 * follow the calls live.
 */
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard();
  await dashboard.untilConnected(['weather']);
});

afterAll(async () => {
  await dashboard?.close();
});

const forecast = (city: string) =>
  dashboard.api('POST', '/api/tools/mcp__weather__get_forecast/call', { arguments: { city, days: 1 } });

describe('the recent-calls charts', () => {
  it('start empty, and draw the calls made through the API on the servers page', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    await page.getByTestId('calls-weather').waitFor();
    expect(await page.getByTestId('calls-weather').textContent()).toMatch(/No tool calls/);
    for (let i = 0; i < 5; i++) expect((await forecast(`City ${i}`)).status).toBe(200);
    // A call the weather server fails (days out of range is the server's own error, isError).
    await dashboard.api('POST', '/api/tools/mcp__weather__get_forecast/call', {
      arguments: { city: 'X', days: 99 },
    });
    const stats = await dashboard.api<ApiCallStats>('GET', '/api/metrics/calls');
    const weather = stats.body.servers.find((s) => s.server === 'weather')!;
    expect(weather.lastMinute.calls).toBe(6);
    // The charts poll every few seconds: wait for the figures, not for a time.
    const rate = page.getByTestId('calls-rate-weather-value');
    await rate.waitFor({ timeout: 20_000 });
    expect(await rate.textContent()).toMatch(/^\d+(\.\d)?\/(s|min)$/);
    expect(await page.getByTestId('calls-latency-weather-value').textContent()).toMatch(/ms|s/);
    const errors = await page.getByTestId('calls-errors-weather-value').textContent();
    expect(errors).toMatch(/^\d+(\.\d)? %$/);
    // Each sparkline is a drawn path, not an empty box.
    const paths = await page
      .locator('[data-testid="calls-weather"] path')
      .evaluateAll((els) => els.map((el) => el.getAttribute('d') ?? ''));
    expect(paths.length).toBe(4);
    expect(paths.filter((d) => d.startsWith('M')).length).toBeGreaterThanOrEqual(3);
    await screenshot(page, 'servers-charts');
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('the Metrics page lists every called server with larger charts and its figures in words', async () => {
    const { page } = dashboard;
    await dashboard.open('#/metrics');
    await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
    const card = page.getByTestId('metrics-weather');
    await card.waitFor({ timeout: 20_000 });
    const text = await card.textContent();
    expect(text).toMatch(/\d+ calls in the last minute/);
    const before = Number(/(\d+) calls in the last minute/.exec(text ?? '')?.[1]);
    // Live: more calls show up without a reload.
    for (let i = 0; i < 3; i++) await forecast(`More ${i}`);
    await page
      .getByTestId('metrics-weather')
      .getByText(`${before + 3} calls in the last minute`)
      .waitFor({ timeout: 20_000 });
    await screenshot(page, 'metrics');
    expect(dashboard.browser.errors).toEqual([]);
  });
});
