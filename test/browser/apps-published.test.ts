import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiAuditEntry, ApiPage } from '../../src/gateway/api/api-types.js';
import { tinyPdf } from '../fixtures/apps/tiny-pdf.js';
import { basicAppServerBin, pdfAppServerBin } from '../helpers/servers.js';
import { screenshot, WAIT_MS } from './support/chromium.js';
import { type Dashboard, openDashboard } from './support/dashboard.js';
import { serveSwitchboard } from './support/switchboard-process.js';

/**
 * Published MCP Apps servers from npm, rendered in the dashboard as their authors ship them:
 * `@modelcontextprotocol/server-basic-vanillajs` (a clock whose view calls its tool back) and
 * `@modelcontextprotocol/server-pdf` (a PDF.js viewer that reads the document through its
 * app-only `read_pdf_bytes`). Nothing leaves the machine: the browser refuses every request
 * that is not to the loopback gateway, and the test records each one (the PDF view declares
 * unpkg.com for PDF.js's standard fonts; it renders without them).
 */
const PDF_TEXT = 'Hello from Switchboard';
let dashboard: Dashboard;
let pdfDir: string;
let pdfPath: string;
/** Requests to anywhere but this machine, refused. */
const outside: string[] = [];

beforeAll(async () => {
  pdfDir = await mkdtemp(join(tmpdir(), 'sb-pdf-'));
  pdfPath = join(pdfDir, 'hello.pdf');
  await writeFile(pdfPath, tinyPdf(PDF_TEXT));
  dashboard = await openDashboard({
    run: () =>
      serveSwitchboard({
        governance: { mode: 'full-auto' },
        servers: {
          clock: { command: process.execPath, args: [basicAppServerBin, '--stdio'] },
          // The server takes its client's roots as its directories, in place of its arguments.
          pdf: {
            command: process.execPath,
            args: [pdfAppServerBin, '--stdio', pdfDir],
            roots: [{ uri: pathToFileURL(pdfDir).href }],
          },
        },
      }),
  });
  await dashboard.browser.context.route(
    (url) => !['127.0.0.1', 'localhost'].includes(url.hostname) && !url.hostname.endsWith('.localhost'),
    async (route) => {
      outside.push(route.request().url());
      await route.abort('blockedbyclient');
    },
  );
  await dashboard.untilConnected(['clock', 'pdf']);
});

afterAll(async () => {
  await dashboard?.close();
  if (pdfDir) await rm(pdfDir, { recursive: true, force: true });
});

/** The view inside the sandbox proxy inside the dashboard. */
function viewOf(dashboard: Dashboard) {
  return dashboard.page.frameLocator('iframe.app-frame').frameLocator('iframe');
}

/** The audited tool calls: [tool, outcome, via]. */
async function auditedCalls(): Promise<[string | undefined, string | null, string | undefined][]> {
  const audit = await dashboard.api<ApiPage<ApiAuditEntry>>('GET', '/api/audit?action=tool_call&limit=200');
  return audit.body.items.map((e) => [
    (e.details as { tool?: string }).tool,
    e.outcome,
    (e.details as { via?: string }).via,
  ]);
}

describe('published MCP Apps servers in the dashboard', () => {
  it('server-basic-vanillajs: the view shows the result and calls get-time back, audited', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__clock__get-time');
    await page.getByRole('button', { name: 'Run' }).click();
    const view = viewOf(dashboard);
    const time = view.locator('#server-time');
    // The tool result, delivered through the official AppBridge once the view initialized.
    await expect.poll(() => time.textContent(), { timeout: WAIT_MS }).toMatch(/^\d{4}-\d\d-\d\dT/);
    const before = (await auditedCalls()).filter(([tool, , via]) => tool === 'get-time' && via === 'app');
    await view.locator('#get-time-btn').click();
    // The view's own tools/call, through POST /api/apps/call, audited as the app's.
    await expect
      .poll(
        async () =>
          (await auditedCalls()).filter(
            ([tool, outcome, via]) => tool === 'get-time' && via === 'app' && outcome === 'ok',
          ).length,
        { timeout: WAIT_MS },
      )
      .toBe(before.length + 1);
    await expect.poll(() => time.textContent(), { timeout: WAIT_MS }).toMatch(/^\d{4}-\d\d-\d\dT/);
    await screenshot(page, 'app-published-basic');
  });

  it('server-pdf: the viewer renders a local PDF it reads through its app-only tool, audited', async () => {
    const { page } = dashboard;
    await dashboard.open('#/tools/mcp__pdf__display_pdf');
    await page.getByLabel('url').fill(pdfPath);
    await page.getByRole('button', { name: 'Run' }).click();
    const view = viewOf(dashboard);
    // In sight, as a person would look at it: Chromium holds back animation frames of
    // cross-origin frames out of view, and PDF.js paints in them.
    await page.locator('iframe.app-frame').scrollIntoViewIfNeeded();
    // PDF.js's text layer holds the page's text once the document is loaded and rendered.
    await view.locator('#text-layer', { hasText: PDF_TEXT }).waitFor({ timeout: 60_000 });
    expect(await view.locator('#total-pages').textContent()).toMatch(/1/);
    const canvas = view.locator('#pdf-canvas');
    expect(Number(await canvas.getAttribute('width'))).toBeGreaterThan(0);
    const rows = await auditedCalls();
    // The bytes came through the view's call of read_pdf_bytes (visibility ["app"]): the model
    // never has that tool, the view's own server gave it to the view.
    expect(rows).toContainEqual(['read_pdf_bytes', 'ok', 'app']);
    expect(rows).toContainEqual(['display_pdf', 'ok', undefined]);
    // Nothing reached outside this machine; what was tried is only what the view declared.
    for (const url of outside) expect(url).toMatch(/^https:\/\/unpkg\.com\//);
    await screenshot(page, 'app-published-pdf');
  });
});
