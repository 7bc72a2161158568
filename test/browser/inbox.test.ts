import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';

/**
 * The Inbox, live: a call that policy asks about waits there for Approve, and a server's
 * questions (elicitations) are answered there with forms generated from their schemas. The
 * demo's files server works in examples/demo/sandbox (`switchboard start` always uses that
 * folder), so the file written here has a unique name and is removed afterwards.
 */
const SANDBOX = join(dirname(fileURLToPath(import.meta.url)), '../../examples/demo/sandbox');
const written = `browser-test-${process.pid}-${Date.now()}.txt`;
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await openDashboard();
  await dashboard.untilConnected(['files', 'accounts']);
});

afterAll(async () => {
  await rm(join(SANDBOX, written), { force: true });
  await dashboard?.close();
});

describe('the Inbox', () => {
  it('holds a files write until it is approved, then the tool page shows the result', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__files__write_file');
    await page.getByLabel('path').fill(written);
    await page.getByLabel('content').fill('Written from the dashboard.\n');
    await page.getByRole('button', { name: 'Run' }).click();

    // The call waits: the status says where, and the Inbox badge lights up, live.
    await page.getByTestId('call-status').getByText('Waiting for approval in the').waitFor();
    await page.locator('[data-testid="inbox-count"].badge-lit').waitFor();
    expect((await page.getByTestId('inbox-count').textContent())?.trim()).toMatch(/^1\s*waiting$/);
    expect(existsSync(join(SANDBOX, written))).toBe(false);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
    const card = page.locator('[data-kind="approval"]');
    await card.waitFor();
    expect(await card.getByRole('heading', { level: 2 }).textContent()).toContain('files.write_file');
    expect(await card.locator('pre').textContent()).toContain(written);
    await screenshot(page, 'inbox-approval');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByTestId('inbox-empty').waitFor();

    await page.getByRole('link', { name: 'mcp__files__write_file' }).click();
    const result = page.getByTestId('call-result');
    await result.waitFor();
    expect(await result.getAttribute('data-error')).toBe('false');
    expect(await result.textContent()).toContain(`Successfully wrote to ${written}`);
    expect(await readFile(join(SANDBOX, written), 'utf8')).toBe('Written from the dashboard.\n');
    await screenshot(page, 'inbox-approved-result');
  });

  it("answers the accounts server's questions: a confirmation, then the API key as a secret", async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__accounts__connect_account');
    await page.getByLabel('service').fill('acme-crm');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByTestId('call-status').getByRole('link', { name: 'Inbox' }).click();

    // connect_account is not read-only: policy asks first, unless "Always allow" was chosen.
    const approval = page.locator('[data-kind="approval"]');
    const question = page.locator('[data-kind="elicitation"]');
    await approval.or(question).first().waitFor();
    if (await approval.count()) {
      expect(await approval.getByRole('heading', { level: 2 }).textContent()).toContain(
        'accounts.connect_account',
      );
      await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    }

    await question.getByText('Connect the demo account "acme-crm"?').waitFor();
    const confirm = question.getByRole('checkbox', { name: /Connect/ });
    expect(await confirm.isChecked()).toBe(false);
    await confirm.check();
    await screenshot(page, 'inbox-elicitation-confirm');
    await question.getByRole('button', { name: 'Submit' }).click();

    await question.getByText('The API key for "acme-crm"').waitFor();
    const key = question.getByLabel('API key');
    expect(await key.getAttribute('type')).toBe('password');
    // Too short first: the form says so and sends nothing.
    await key.fill('short');
    await question.getByRole('button', { name: 'Submit' }).click();
    await question.locator('.field-error', { hasText: 'At least 8 characters.' }).waitFor();
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    await key.fill('sk-demo-12345678');
    await screenshot(page, 'inbox-elicitation-secret');
    await question.getByRole('button', { name: 'Submit' }).click();
    await question.waitFor({ state: 'detached' });

    await page.getByRole('link', { name: 'mcp__accounts__connect_account' }).click();
    const result = page.getByTestId('call-result');
    await result.waitFor();
    expect(await result.textContent()).toContain('Connected "acme-crm" with the key …5678 (16 characters)');
    // The key itself is never shown back.
    expect(await page.content()).not.toContain('sk-demo-12345678');
    await screenshot(page, 'inbox-elicitation-result');
    expect(dashboard.browser.errors).toEqual([]);
  });
});
