import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';

/**
 * The Servers page of a real `switchboard start`: the demo servers' states arrive live over the
 * stream, and the page reads well in both themes and on a narrow window.
 */
const WEATHER = join(dirname(fileURLToPath(import.meta.url)), '../../examples/servers/demo-weather.ts');
// A server added from the dashboard runs sandboxed, in its own state directory: a bare
// `--import tsx` would be resolved from there, so the loader is named by its file.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard();
});

afterAll(async () => {
  await dashboard?.close();
});

describe('the Servers page', () => {
  it('shows the weather server going "connected", with its protocol and tools', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    const weather = page.getByTestId('server-weather');
    await weather.and(page.locator('[data-state="connected"]')).waitFor();
    expect(await page.getByTestId('server-state-weather').textContent()).toBe('connected');
    expect(await page.getByTestId('server-protocol-weather').textContent()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await weather.locator('dt:text-is("Tools") + dd').textContent()).toBe('3');
    for (const name of ['accounts', 'files']) await page.getByTestId(`server-${name}`).waitFor();
    await screenshot(page, 'servers');
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('adds a server, disables and enables it, edits its entry and removes it', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    // Entries from the config file can be toggled, not edited or removed.
    const weather = page.getByTestId('server-weather');
    await weather.getByRole('button', { name: 'Disable weather' }).waitFor();
    expect(await weather.getByRole('button', { name: 'Remove weather' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Add server' }).click();
    const form = page.getByRole('form', { name: 'Add server' });
    await form.getByLabel('Name').fill('forecast2');
    await form.getByRole('textbox', { name: 'Command' }).fill('node');
    await form.getByLabel('Arguments, one per line').fill(['--import', TSX, WEATHER].join('\n'));
    await form.getByRole('button', { name: 'Add' }).click();
    await form.waitFor({ state: 'detached' });
    const card = page.getByTestId('server-forecast2');
    await card.and(page.locator('[data-state="connected"]')).waitFor();
    expect(await card.locator('dt:text-is("Tools") + dd').textContent()).toBe('3');

    await card.getByRole('button', { name: 'Disable forecast2' }).click();
    await card.and(page.locator('[data-state="disabled"]')).waitFor();
    expect(await page.getByTestId('server-state-forecast2').textContent()).toBe('disabled');
    await card.getByRole('button', { name: 'Enable forecast2' }).click();
    await card.and(page.locator('[data-state="connected"]')).waitFor();

    await card.getByRole('button', { name: 'Edit forecast2' }).click();
    const editor = page.getByLabel('Entry of forecast2 (JSON, as in switchboard.json)');
    await editor.and(page.locator(':enabled')).waitFor();
    const entry = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    expect(entry).toMatchObject({ command: 'node', args: ['--import', TSX, WEATHER] });
    await editor.fill('{ "command": "node", "args": "not a list" }');
    await card.getByRole('button', { name: 'Save' }).click();
    // The API's own words about what is wrong.
    await card.getByTestId('error-banner').waitFor();
    await editor.fill(JSON.stringify({ ...entry, description: 'A second weather.' }));
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('A second weather.').waitFor();
    await card.and(page.locator('[data-state="connected"]')).waitFor();
    await screenshot(page, 'servers-managed');

    await card.getByRole('button', { name: 'Remove forecast2' }).click();
    await card.getByRole('button', { name: 'Yes, remove forecast2' }).click();
    await card.waitFor({ state: 'detached' });
    const listed = await dashboard.api<{ servers: { name: string }[] }>('GET', '/api/servers');
    expect(listed.body.servers.map((s) => s.name)).not.toContain('forecast2');
  });

  it("follows the system's dark preference until a theme is picked", async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    await page.evaluate('localStorage.clear()');
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await dashboard.open('#/servers');
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(15, 18, 22)');
      expect(await page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      await page.emulateMedia({ colorScheme: 'light' });
      await page.getByRole('button', { name: 'Dark theme', pressed: false }).waitFor();
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe(
        'rgb(246, 247, 249)',
      );
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('toggles the dark theme, and keeps it after a reload', async () => {
    const { page } = dashboard;
    await dashboard.open('#/servers');
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    const light = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    const dark = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(dark).not.toBe(light);
    expect(dark).toBe('rgb(15, 18, 22)');
    await page.reload();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    expect(await page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed')).toBe('true');
    await screenshot(page, 'dark-theme');
    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
  });

  it('fits a narrow window without sideways scrolling', async () => {
    const { page } = dashboard;
    await page.setViewportSize({ width: 380, height: 800 });
    try {
      await dashboard.open('#/servers');
      await page.getByTestId('server-weather').waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(380);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tools' }).waitFor();
      await screenshot(page, 'narrow');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
