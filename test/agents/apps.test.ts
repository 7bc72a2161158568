import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSession } from '../../src/agents/session.js';
import { ToolRound } from '../../src/agents/tool-rounds.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { appsServerBin, kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * MCP Apps through the agents layer, on the apps fixture (a real process) beside the kitchen
 * sink: app-only tools never reach a model — in no adapter's tool list, not in search, not
 * callable by the model — but their app calls them; a result with a view carries its
 * reference; an app's call to a model-only tool or another server's tool is refused, audited.
 */
let dataDir: string;
let host: Host;
let session: AgentSession;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-apps-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    connection: { apps: true },
    servers: [
      normalizeServerEntry({
        name: 'apps',
        command: process.execPath,
        args: [appsServerBin],
        deferral: 'eager',
      }),
      normalizeServerEntry({
        name: 'kitchen',
        command: process.execPath,
        args: [kitchenSinkBin],
        deferral: 'eager',
      }),
    ],
  });
  await catalogHas(host, 'mcp__apps__show_counter');
  await catalogHas(host, 'mcp__kitchen__add');
  session = AgentSession.open(host, 'apps-chat');
});

afterAll(async () => {
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
});

const APP_ONLY = ['mcp__apps__increment', 'mcp__apps__report'];

describe('app-only tools and the model', () => {
  it('are in no adapter of a round, and the rest of the server is', async () => {
    const round = await ToolRound.of(session);
    const lists = {
      round: round.tools.map((t) => t.name),
      openAIChat: round.openAIChatTools().map((t) => t.function.name),
      openAIResponses: round.openAIResponsesTools().map((t) => t.name),
      anthropic: round.anthropicTools().map((t) => t.name),
      vercel: Object.keys(round.vercelTools(jsonSchema)),
    };
    for (const [adapter, names] of Object.entries(lists)) {
      for (const name of APP_ONLY) expect(names, adapter).not.toContain(name);
      expect(names, adapter).toContain('mcp__apps__show_counter');
      expect(names, adapter).toContain('mcp__apps__secret_note');
      expect(names, adapter).toContain('mcp__kitchen__add');
    }
  });

  it('are not found by search_tools', async () => {
    const answer = await session.execute('search_tools', { query: 'increment the counter', limit: 25 });
    const names = (JSON.parse(answer.text) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toContain('mcp__apps__show_counter');
    for (const name of APP_ONLY) expect(names).not.toContain(name);
  });

  it('cannot be called by the model, as if they did not exist', async () => {
    const outcome = await session.execute('mcp__apps__increment', {});
    expect(outcome.result.isError).toBe(true);
    expect(outcome.text).toMatch(/No tool "mcp__apps__increment"/);
  });
});

describe('the client capability', () => {
  it('declares MCP Apps with the HTML profile when the embedding app turns it on', async () => {
    const answer = await session.execute('mcp__apps__client_declares', {});
    expect(JSON.parse(answer.text)).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  });
});

describe('results with an app', () => {
  it('carry the reference of the view; a tool without one carries none', async () => {
    const shown = await session.execute('mcp__apps__show_counter', { label: 'clicks' });
    expect(shown.app).toEqual({
      server: 'apps',
      tool: 'mcp__apps__show_counter',
      resourceUri: 'ui://counter/view.html',
    });
    expect(shown.text).toMatch(/clicks is \d+/);
    expect((await session.execute('mcp__apps__plain', {})).app).toBeUndefined();
  });

  it('the view is read, checked and given the CSP it declared, narrowed to origins', async () => {
    const view = await host.appView('apps', 'ui://counter/view.html');
    expect(view.html).toMatch(/^<!DOCTYPE html>/);
    expect(view.ui.csp.connectDomains).toEqual(['https://api.example.test']);
    expect(view.ui.csp.resourceDomains).toEqual(['https://cdn.example.test']);
    expect(view.csp).toContain('connect-src https://api.example.test');
    expect(view.csp).not.toMatch(/unsafe-eval|script-src \*|x\.test/);
    expect(view.allow).toBe('clipboard-write');
    expect(view.ui.prefersBorder).toBe(true);
    // Kept by definition: opened again, it is not read again.
    const reads = async () =>
      (await host.audit({ action: 'resource_read' })).entries.filter(
        (e) => (e.details as { uri?: string }).uri === 'ui://counter/view.html',
      ).length;
    const before = await reads();
    expect(await host.appView('apps', 'ui://counter/view.html')).toBe(view);
    expect(await reads()).toBe(before);
    await expect(host.appView('apps', 'ui://counter/none.html')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(host.appView('kitchen', 'ui://counter/view.html')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe("an app's calls", () => {
  it('reach its own server’s app-visible tools, audited as from the app', async () => {
    const result = await session.appCall({ server: 'apps' }, 'increment', {});
    expect(result.isError).toBeFalsy();
    expect(result.raw.structuredContent).toMatchObject({ count: expect.any(Number) });
    const [entry] = (await host.audit({ actor: 'apps-chat', action: 'tool_call' })).entries;
    expect(entry).toMatchObject({
      server: 'apps',
      outcome: 'ok',
      details: { tool: 'increment', via: 'app' },
    });
  });

  it('are refused for a tool only the model may call, audited', async () => {
    const error = await session.appCall({ server: 'apps' }, 'secret_note', {}).catch((e: unknown) => e);
    expect(isSwitchboardError(error, 'POLICY_DENIED')).toBe(true);
    expect(error).toMatchObject({ details: { reason: 'app_scope' } });
    const [entry] = (await host.audit({ actor: 'apps-chat', action: 'tool_call' })).entries;
    expect(entry).toMatchObject({ outcome: 'denied', details: { tool: 'secret_note', via: 'app' } });
  });

  it("never reach another server's tools, by its name or by the catalog's", async () => {
    await expect(session.appCall({ server: 'apps' }, 'add', { a: 1, b: 2 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      session.appCall({ server: 'apps' }, 'mcp__kitchen__add', { a: 1, b: 2 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const error = await host
      .callTool('mcp__kitchen__add', { a: 1, b: 2 }, { session: 'apps-chat', app: { server: 'apps' } })
      .catch((e: unknown) => e);
    expect(isSwitchboardError(error, 'POLICY_DENIED')).toBe(true);
    const [entry] = (await host.audit({ actor: 'apps-chat', action: 'tool_call' })).entries;
    expect(entry).toMatchObject({
      server: 'kitchen',
      outcome: 'denied',
      details: { tool: 'add', app: 'apps' },
    });
  });
});
