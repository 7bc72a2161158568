import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naturalWidth, screenshot, WAIT_MS } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';

/**
 * The Tools pages against the demo weather server: search, a form generated from the tool's
 * input schema, Run, and the result (structured JSON, text, a PNG chart loaded from /media).
 */
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard();
  await dashboard.untilConnected(['weather', 'files']);
});

afterAll(async () => {
  await dashboard?.close();
});

describe('the Tools pages', () => {
  it('finds get_forecast by search and runs it from the generated form', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools');
    await page.getByTestId('tool-link-mcp__files__read_text_file').waitFor();
    await page.getByLabel('Search tools').fill('forecast');
    await page.getByTestId('tool-link-mcp__files__read_text_file').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'get_forecast' }).click();
    await page.getByRole('heading', { level: 1, name: 'Forecast' }).waitFor();
    expect(page.url()).toMatch(/#\/tools\/mcp__weather__get_forecast$/);

    // The schema: city (string, required), days (integer 1–7, default 3).
    const days = page.getByLabel('days');
    expect(await days.inputValue()).toBe('3');
    expect(await days.getAttribute('type')).toBe('number');
    expect(await days.getAttribute('max')).toBe('7');
    await page.getByLabel('city').fill('Lisbon');
    await days.fill('2');
    await page.getByRole('button', { name: 'Run' }).click();

    const result = page.getByTestId('call-result');
    await result.waitFor();
    expect(await result.getAttribute('data-error')).toBe('false');
    const json = JSON.parse((await page.getByTestId('result-json').textContent()) ?? '') as {
      city: string;
      days: { day: number }[];
    };
    expect(json.city).toBe('Lisbon');
    expect(json.days.map((d) => d.day)).toEqual([0, 1]);
    expect(await page.getByTestId('call-duration').textContent()).toMatch(/^in \d+(\.\d)? (ms|s)$/);
    await screenshot(page, 'tool-get-forecast');
  });

  it('shows what is wrong with the arguments instead of calling', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__weather__get_forecast');
    await page.getByLabel('days').fill('9');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText('Required.').waitFor();
    await page.getByText('At most 7.').waitFor();
    expect(await page.getByLabel('city').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('call-result').count()).toBe(0);
  });

  it('switches to raw JSON and back, carrying the arguments across', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__weather__get_forecast');
    await page.getByLabel('city').fill('Lima');
    await page.getByRole('checkbox', { name: 'Raw JSON' }).check();
    const raw = page.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await raw.inputValue())).toEqual({ city: 'Lima', days: 3 });
    await raw.fill('{"city": "Quito", "days": 1}');
    await page.getByRole('checkbox', { name: 'Raw JSON' }).uncheck();
    expect(await page.getByLabel('city').inputValue()).toBe('Quito');
    expect(await page.getByLabel('days').inputValue()).toBe('1');
    await page.getByRole('checkbox', { name: 'Raw JSON' }).check();
    await page.getByLabel('Arguments (JSON)').fill('["not", "an object"]');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText('The arguments must be a JSON object').waitFor();
    await page.getByLabel('Arguments (JSON)').fill('{"city": "Quito", "days": 1}');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('call-result').waitFor();
    expect(JSON.parse((await page.getByTestId('result-json').textContent()) ?? '')).toMatchObject({
      city: 'Quito',
      days: [{ day: 0 }],
    });
  });

  it('runs forecast_chart and shows the chart image, loaded', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__weather__forecast_chart');
    await page.getByLabel('city').fill('Oslo');
    await page.getByRole('button', { name: 'Run' }).click();
    const image = page.getByTestId('result-image');
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(/^\/media\/[^/]+\.png$/);
    // Loaded and decoded: a broken image has a natural width of 0.
    await expect.poll(() => naturalWidth(image), { timeout: WAIT_MS }).toBeGreaterThan(0);
    expect(await page.getByTestId('result-text').first().textContent()).toContain('Forecast chart for Oslo');
    await screenshot(page, 'tool-forecast-chart');
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('lists the calls in the Audit page, filtered by server and action', async () => {
    const { page } = dashboard;
    await dashboard.open('#/audit');
    const rows = page.getByTestId('audit-table').locator('tbody tr');
    await rows.first().waitFor();
    await page.getByLabel('Server').fill('weather');
    await page.getByLabel('Action').fill('tool_call');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await rows.filter({ hasText: 'forecast_chart' }).first().waitFor();
    for (const row of await rows.all()) {
      const text = await row.textContent();
      expect(text).toContain('weather');
      expect(text).toContain('tool_call');
    }
    await page.getByLabel('Server').fill('no-such-server');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No audit entries match.').waitFor();
    expect(await rows.count()).toBe(0);
    await screenshot(page, 'audit');
  });

  it('can be used with the keyboard alone: Tab reaches the navigation, the form and Run', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    // What a screen reader would call the focused element: its label, else its own text.
    const focused = () =>
      page.evaluate(
        `(() => {
          const e = document.activeElement;
          if (!e) return '';
          const label = e.labels && e.labels[0] ? e.labels[0].textContent : '';
          return (e.getAttribute('aria-label') || label || e.textContent || e.tagName).trim();
        })()`,
      ) as Promise<string>;
    const tabTo = async (wanted: RegExp, limit = 40) => {
      for (let i = 0; i < limit; i++) {
        await page.keyboard.press('Tab');
        if (wanted.test(await focused())) return;
      }
      throw new Error(`Tab never reached ${wanted} in ${limit} presses (last: ${await focused()})`);
    };

    await tabTo(/^Tools$/);
    // The focus is visible: an outline drawn by :focus-visible.
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    // Focus goes to the new page's heading, as a page load would put it; the search box is next.
    await page.locator('#tools-title:focus').waitFor();
    await tabTo(/^Search tools$/, 3);
    await page.keyboard.type('current');
    await tabTo(/^current_conditions$/);
    await page.keyboard.press('Enter');
    await page.locator('h1:focus', { hasText: 'Current conditions' }).waitFor();
    await tabTo(/^city/);
    await page.keyboard.type('Porto');
    await tabTo(/^Run$/);
    await page.keyboard.press('Enter');
    await page.getByTestId('call-result').waitFor();
    expect(await page.getByTestId('result-text').textContent()).toContain('Porto');
    await screenshot(page, 'keyboard');
  });
});
