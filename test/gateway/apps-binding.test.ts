import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { OpenedViews } from '../../src/gateway/mcp/opened-views.js';
import { Host } from '../../src/host/host.js';
import { tinyPdf } from '../fixtures/apps/tiny-pdf.js';
import { appsServerBin } from '../fixtures/paths.js';
import { pdfAppServerBin } from '../helpers/servers.js';
import { catalogHas } from '../helpers/wait.js';
import { modernClient, quietLog } from './modern-client.js';

/**
 * The same-server rule for views of the gateway's MCP clients (SEP-1865 §Visibility: an
 * app-only tool is "callable by the app from the same server connection only"): an app-only
 * tool of server S runs only for a caller that has read one of S's views — a 2025 session for
 * its lifetime, a principal's 2026-07-28 requests — and is refused, audited, otherwise; tools
 * the model may call stay callable. Two real app servers: the apps fixture (`increment`,
 * `report` app-only) and the published `@modelcontextprotocol/server-pdf` (`read_pdf_bytes`
 * app-only), behind one gateway over HTTP, with SDK clients of both eras.
 */
const UI = 'io.modelcontextprotocol/ui';
const aware = { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } };
const COUNTER_VIEW = 'ui://counter/view.html';
const PDF_VIEW = 'ui://pdf-viewer/mcp-app.html';

let dataDir: string;
let pdfPath: string;
let host: Host;
let gateway: HttpGateway;
const clients: Client[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-apps-binding-'));
  const pdfDir = join(dataDir, 'pdfs');
  await mkdir(pdfDir);
  pdfPath = join(pdfDir, 'one.pdf');
  await writeFile(pdfPath, tinyPdf('one page'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    connection: { apps: true },
    servers: [
      normalizeServerEntry({ name: 'apps', command: process.execPath, args: [appsServerBin] }),
      normalizeServerEntry({
        name: 'pdf',
        command: process.execPath,
        args: [pdfAppServerBin, '--stdio', pdfDir],
        roots: [{ uri: pathToFileURL(pdfDir).href }],
      }),
    ],
  });
  await catalogHas(host, 'mcp__apps__increment');
  await catalogHas(host, 'mcp__pdf__read_pdf_bytes');
  gateway = await startHttpGateway(host, resolveGateway({ port: 0 }), { log: quietLog });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.close();
  await host?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function legacy(): Promise<Client> {
  const client = new Client({ name: 'legacy-host', version: '1.0.0' }, { capabilities: aware });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  clients.push(client);
  return client;
}

async function modern(): Promise<Client> {
  const client = await modernClient(gateway.url, aware, 'modern-host');
  clients.push(client);
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  const first = (result.content as { type: string; text?: string }[])[0];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

/** The audited tool calls of `tool`: [outcome, via, reason]. */
async function audited(tool: string): Promise<[string | null, unknown, unknown][]> {
  const page = await host.audit({ action: 'tool_call', limit: 500 });
  return page.entries
    .filter((e) => (e.details as { tool?: string } | undefined)?.tool === tool)
    .map((e) => {
      const details = e.details as { via?: unknown; reason?: unknown };
      return [e.outcome, details.via, details.reason];
    });
}

describe('an app-only tool through the gateway', () => {
  it('is refused, audited, to a 2025 session that read none of its server’s views', async () => {
    const hostile = await legacy();
    const before = (await audited('increment')).length;
    const refused = await hostile.callTool({ name: 'mcp__apps__increment', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/only a view of server "apps" may call it/);
    expect(text(refused)).toMatch(/no view of server "apps" was read in this session/);
    const rows = await audited('increment');
    expect(rows.length).toBe(before + 1);
    expect(rows[0]).toEqual(['denied', 'app', 'no view of server "apps" was read in this session']);
  });

  it('runs for a session that read its server’s view, audited as the app’s; another server’s stays refused', async () => {
    const hostile = await legacy();
    await hostile.readResource({ uri: COUNTER_VIEW });
    const own = await hostile.callTool({ name: 'mcp__apps__increment', arguments: {} });
    expect(own.isError).toBeFalsy();
    expect(own.structuredContent).toMatchObject({ count: expect.any(Number) });
    expect((await audited('increment'))[0]?.slice(0, 2)).toEqual(['ok', 'app']);
    // The counter's view is open; the PDF server's app-only tool is not (a view of "apps"
    // through this session cannot reach it).
    const other = await hostile.callTool({
      name: 'mcp__pdf__read_pdf_bytes',
      arguments: { url: pdfPath },
    });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/no view of server "pdf" was read/);
    expect((await audited('read_pdf_bytes'))[0]?.slice(0, 2)).toEqual(['denied', 'app']);
    // Tools the model may call are as they were: callable with no view read.
    const model = await hostile.callTool({ name: 'mcp__pdf__list_pdfs', arguments: {} });
    expect(model.isError).toBeFalsy();
  });

  it('is bound to the session: another session of the same principal has not read the view', async () => {
    const first = await legacy();
    const second = await legacy();
    await first.readResource({ uri: PDF_VIEW });
    const own = await first.callTool({ name: 'mcp__pdf__read_pdf_bytes', arguments: { url: pdfPath } });
    expect(own.isError, text(own)).toBeFalsy();
    expect((own.structuredContent as { totalBytes?: number }).totalBytes).toBeGreaterThan(0);
    const elsewhere = await second.callTool({
      name: 'mcp__pdf__read_pdf_bytes',
      arguments: { url: pdfPath },
    });
    expect(elsewhere.isError).toBe(true);
  });

  it('for 2026-07-28 requests (no session): bound to the principal by its reads', async () => {
    const client = await modern();
    const refused = await client.callTool({ name: 'mcp__pdf__read_pdf_bytes', arguments: { url: pdfPath } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/no view of server "pdf" was read in this principal's requests/);
    await client.readResource({ uri: PDF_VIEW });
    const own = await client.callTool({ name: 'mcp__pdf__read_pdf_bytes', arguments: { url: pdfPath } });
    expect(own.isError, text(own)).toBeFalsy();
    // Another server's app-only tool: still refused after the PDF view was read.
    const other = await client.callTool({ name: 'mcp__apps__report', arguments: { findings: {} } });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/no view of server "apps" was read/);
  });
});

describe('OpenedViews', () => {
  it('keeps a session’s reads for the session and a principal’s for the TTL after its last use', () => {
    let now = 0;
    const views = new OpenedViews({ ttlMs: 100, maxPrincipals: 2, now: () => now });
    const session = {};
    views.open({ session }, 'a');
    expect(views.has({ session }, 'a')).toBe(true);
    expect(views.has({ session: {} }, 'a')).toBe(false);
    expect(views.has({ session }, 'b')).toBe(false);

    views.open({ principal: 'p' }, 'a');
    now = 90;
    expect(views.has({ principal: 'p' }, 'a')).toBe(true); // renewed until 190
    now = 180;
    expect(views.has({ principal: 'p' }, 'a')).toBe(true);
    now = 400;
    expect(views.has({ principal: 'p' }, 'a')).toBe(false);
    expect(views.has({ principal: 'q' }, 'a')).toBe(false);

    // Bounded: the least recently used principal goes first.
    views.open({ principal: 'p' }, 'a');
    views.open({ principal: 'q' }, 'a');
    views.open({ principal: 'r' }, 'a');
    expect(views.has({ principal: 'p' }, 'a')).toBe(false);
    expect(views.has({ principal: 'r' }, 'a')).toBe(true);
  });
});
