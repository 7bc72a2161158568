import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAuditEntry, ApiInboxItem, ApiPage } from '../../src/gateway/api/api-types.js';
import { screenshot, WAIT_MS } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';
import { serveSwitchboard, tsxServer } from './support/switchboard-process.js';

/**
 * The Resources and Prompts pages, and cancelling a tool call, against the kitchen-sink
 * fixture server (`switchboard serve`; the demo servers offer no resources or prompts). It has
 * the resources kitchen://text and kitchen://blob, the template kitchen://items/{id}, the
 * prompt `greet` with a required `name`, and `slow`, which waits as long as it is told to. The
 * server is untrusted (the default), so `slow` waits for an approval first.
 */
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard({
    run: () => serveSwitchboard({ servers: { kitchen: tsxServer('test/fixtures/kitchen-sink-main.ts') } }),
  });
});

afterAll(async () => {
  await dashboard?.close();
});

describe('the Resources page', () => {
  it("lists the fixture's resources, filters them, and reads the text one", async () => {
    const { page } = dashboard;
    await dashboard.open('#/resources');
    const text = page.locator('[data-testid="resource"][data-uri="kitchen://text"]');
    const blob = page.locator('[data-testid="resource"][data-uri="kitchen://blob"]');
    await text.waitFor();
    await blob.waitFor();
    await page.getByRole('heading', { level: 2, name: 'kitchen' }).waitFor();
    expect(await text.textContent()).toContain('text/plain');
    expect(await text.textContent()).toContain('A text resource');
    expect(await blob.textContent()).toContain('application/octet-stream');

    await page.getByLabel('Filter resources').fill('binary');
    await text.waitFor({ state: 'detached' });
    expect(await blob.count()).toBe(1);
    await page.getByLabel('Filter resources').fill('');
    await text.waitFor();

    // By keyboard: from the filter box, Tab reaches the first Read button (the resource "blob").
    await page.getByLabel('Filter resources').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Read blob');
    // The text resource's Read, by its accessible name.
    await text.getByRole('button', { name: 'Read text' }).focus();
    await page.keyboard.press('Enter');
    const contents = text.getByTestId('resource-contents');
    await contents.waitFor();
    expect(await contents.getByTestId('result-text').textContent()).toBe('hello text');
    expect(await contents.locator('.content-uri').textContent()).toBe('kitchen://text');
    await screenshot(page, 'resources');

    await text.getByRole('button', { name: /^Hide/ }).click();
    await contents.waitFor({ state: 'detached' });
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('offers a binary resource as a download of its bytes', async () => {
    const { page } = dashboard;
    await dashboard.open('#/resources');
    const blob = page.locator('[data-testid="resource"][data-uri="kitchen://blob"]');
    await blob.getByRole('button', { name: 'Read blob' }).click();
    const link = blob.getByTestId('result-blob');
    await link.waitFor();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/media\/[^/]+$/);
    // What the link downloads: the resource's bytes, as the server sent them.
    const body = await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`);
    expect(body).toBe('hello blob');
  });

  it('fills a template from its form and reads the resource it names', async () => {
    const { page } = dashboard;
    await dashboard.open('#/resources');
    const template = page.locator('[data-testid="template"][data-template="kitchen://items/{id}"]');
    await template.waitFor();
    expect(await template.getByTestId('template-uri').textContent()).toBe('kitchen://items/{id}');

    // Empty, it is not read: the variable is required.
    await template.getByRole('button', { name: 'Read item' }).click();
    await template.getByText('Required.').waitFor();
    expect(await template.getByTestId('resource-contents').count()).toBe(0);

    // A value with a space and a slash is percent-encoded into one path segment; the server
    // decodes it again.
    await template.getByLabel('id').fill('a b/7');
    await expect
      .poll(() => template.getByTestId('template-uri').textContent(), { timeout: WAIT_MS })
      .toBe('kitchen://items/a%20b%2F7');
    await template.getByRole('button', { name: 'Read item' }).click();
    const contents = template.getByTestId('resource-contents');
    await contents.waitFor();
    expect(await contents.getByTestId('result-text').textContent()).toBe('item a b/7');
    expect(await contents.locator('.content-uri').textContent()).toBe('kitchen://items/a%20b%2F7');
    await screenshot(page, 'resource-template');
    expect(dashboard.browser.errors).toEqual([]);
  });
});

describe('the Prompts pages', () => {
  it('lists greet, asks for its required argument, and shows the messages it makes', async () => {
    const { page } = dashboard;
    await dashboard.open('#/prompts');
    await page.getByRole('heading', { level: 2, name: 'kitchen' }).waitFor();
    expect(await page.getByText('Greets someone by name.').count()).toBe(1);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Prompts' }).waitFor();
    await page.getByTestId('prompt-link-kitchen-greet').click();
    await page.getByRole('heading', { level: 1, name: 'greet' }).waitFor();
    expect(page.url()).toMatch(/#\/prompts\/kitchen\/greet$/);

    const name = page.getByLabel('name');
    // Marked required, to see and to hear; its description is its help.
    expect(await page.locator('label', { has: page.locator('.required-mark') }).textContent()).toBe(
      'name * (required)',
    );
    expect(await page.getByText('Who to greet').count()).toBe(1);
    await page.getByRole('button', { name: 'Get' }).click();
    await page.getByText('Required.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('prompt-result').count()).toBe(0);

    await name.fill('Ana');
    await page.getByRole('button', { name: 'Get' }).click();
    const messages = page.getByTestId('prompt-message');
    await messages.first().waitFor();
    expect(await messages.count()).toBe(1);
    expect(await messages.first().getAttribute('data-role')).toBe('user');
    expect(await messages.first().locator('.prompt-role').textContent()).toBe('User');
    expect(await messages.first().getByTestId('result-text').textContent()).toBe('Hello, Ana!');
    await screenshot(page, 'prompt-greet');
    // The same page in the dark theme (the choice is kept in the profile: switched back after).
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    await toggle.click();
    await page.locator('html[data-theme="dark"]').waitFor();
    await screenshot(page, 'prompt-greet-dark');
    await toggle.click();
    await page.locator('html[data-theme="light"]').waitFor();
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('says so when the server has no such prompt', async () => {
    const { page } = dashboard;
    await dashboard.open('#/prompts/kitchen/no_such_prompt');
    await page.getByText('Server "kitchen" offers no prompt "no_such_prompt".').waitFor();
  });
});

describe('cancelling a tool call', () => {
  it('cancels a call waiting for approval; its Inbox item goes away and no error shows', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__kitchen__slow');
    await page.getByLabel('ms').fill('60000');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('[data-testid="call-status"][data-state="waiting"]').waitFor();
    await page.locator('[data-testid="inbox-count"].badge-lit').waitFor();

    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('[data-testid="call-status"][data-state="cancelled"]').waitFor();
    expect(await page.getByTestId('call-status').textContent()).toBe('Cancelled.');
    // The API cancelled the approval it was waiting for; the count follows, live.
    await page.locator('[data-testid="inbox-count"]:not(.badge-lit)').waitFor();
    expect((await dashboard.api<{ items: ApiInboxItem[] }>('GET', '/api/inbox')).body.items).toEqual([]);
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    expect(await page.getByTestId('call-result').count()).toBe(0);
    expect(dashboard.browser.errors).toEqual([]);
  });

  it('cancels a running call: "Cancelled" instead of a result, and the call ends at once', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__kitchen__slow');
    await page.getByLabel('ms').fill('60000');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('[data-testid="call-status"][data-state="waiting"]').waitFor();
    const inbox = await dashboard.api<{ items: ApiInboxItem[] }>('GET', '/api/inbox');
    const item = inbox.body.items.find((i) => i.server === 'kitchen' && i.tool === 'slow');
    expect(item).toBeDefined();
    const answered = await dashboard.api('POST', `/api/inbox/${encodeURIComponent(item!.id)}`, {
      action: 'accept',
    });
    expect(answered.status).toBe(200);
    await page.locator('[data-testid="call-status"][data-state="running"]').waitFor();
    expect(await page.getByRole('button', { name: 'Run' }).isDisabled()).toBe(true);
    await screenshot(page, 'tool-running');

    const cancelledAt = Date.now();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('[data-testid="call-status"][data-state="cancelled"]').waitFor();
    expect(await page.getByTestId('call-status').textContent()).toBe('Cancelled.');
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    // Focus, lost with the Cancel button, is back on Run, which works again.
    await page.locator('button:focus', { hasText: 'Run' }).waitFor();
    expect(await page.getByRole('button', { name: 'Run' }).isEnabled()).toBe(true);
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    expect(await page.getByTestId('call-result').count()).toBe(0);
    await screenshot(page, 'tool-cancelled');

    // The gateway ended the call as cancelled, well before the 60 s the tool would have taken.
    const audited = async () => {
      const page = await dashboard.api<ApiPage<ApiAuditEntry>>('GET', '/api/audit?server=kitchen&limit=20');
      return page.body.items.find(
        (e) => (e.details as { tool?: string; error?: string } | null)?.error === 'REQUEST_CANCELLED',
      );
    };
    await expect.poll(audited, { timeout: WAIT_MS }).toBeDefined();
    const entry = (await audited())!;
    expect((entry.details as { tool?: string }).tool).toBe('slow');
    expect(Date.now() - cancelledAt).toBeLessThan(WAIT_MS);
    expect(dashboard.browser.errors).toEqual([]);
  });
});
