import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MCP_LIST_TAG } from '../../src/agents/mcp-list.js';
import type { MetaContext } from '../../src/agents/meta-tools/context.js';
import {
  toolEmbeddingsFromConfig,
  useSearchEmbeddings,
} from '../../src/agents/meta-tools/search-embeddings.js';
import { serverInfoOf } from '../../src/agents/meta-tools/search-tool.js';
import { AgentSession } from '../../src/agents/session.js';
import type { GovernanceConfig } from '../../src/core/config/governance-config.js';
import { type Deferral, normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';
import { startScriptedEmbeddings } from './search/scripted-embeddings.js';

/**
 * An agent session over a real host: three kitchen servers, one deferred (the default), one
 * eager and one hidden; grants in a real SQLite store, across frames and a restart.
 */
let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-agent-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

function kitchen(name: string, deferral?: Deferral) {
  return normalizeServerEntry({
    name,
    command: process.execPath,
    args: [kitchenSinkBin],
    protocol: 'legacy',
    description: `Kitchen ${name}`,
    ...(deferral && { deferral }),
  });
}

async function start(
  servers = [kitchen('lazy'), kitchen('eager', 'eager'), kitchen('secret', 'hidden')],
  governance: Partial<GovernanceConfig> = { mode: 'full-auto' },
): Promise<Host> {
  host = await Host.create({ dataDir, servers, governance });
  const deadline = Date.now() + 20_000;
  const want = servers.map((s) => `mcp__${s.name}__echo`);
  while (!want.every((name) => host!.catalog().lookup(name))) {
    if (Date.now() > deadline) throw new Error('servers never reached the catalog');
    await new Promise((r) => setTimeout(r, 20));
  }
  return host;
}

const names = async (session: AgentSession) => (await session.tools()).map((t) => t.name);

describe('AgentSession', () => {
  it('hands out meta-tools and eager tools first, and a grant loads a server for the next round', async () => {
    const h = await start();
    const session = AgentSession.open(h, 'chat-1');
    const before = await names(session);
    expect(before.slice(0, 3)).toEqual(['activate_tools', 'search_tools', 'mcp_content']);
    expect(before).toContain('mcp__eager__echo');
    expect(before.some((n) => n.startsWith('mcp__lazy__'))).toBe(false);
    expect(before.some((n) => n.startsWith('mcp__secret__'))).toBe(false);

    const notLoaded = await session.execute('mcp__lazy__echo', { text: 'x' });
    expect(notLoaded.result.isError).toBe(true);
    expect(notLoaded.text).toContain('activate_tools with {"groups": ["lazy"]}');

    const activated = await session.execute('activate_tools', { groups: ['lazy', 'secret', 'nope'] });
    expect(activated.result).toMatchObject({
      kind: 'json',
      json: {
        activated: ['lazy'],
        unknown: ['secret', 'nope'],
        scope: { kind: 'session', session: 'chat-1' },
      },
    });
    expect(await names(session)).toContain('mcp__lazy__echo');
    expect((await session.execute('mcp__lazy__echo', { text: 'now' })).text).toBe('now');

    const hidden = await session.execute('mcp__secret__echo', { text: 'x' });
    expect(hidden.text).toContain('No tool "mcp__secret__echo"');
  });

  it('keeps grants per frame: a sub-agent starts with none and its grants end with it', async () => {
    const h = await start();
    const root = AgentSession.open(h, 'chat-2');
    await root.activate(['lazy']);
    expect(() => root.subAgent('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const sub = root.subAgent('task-7');
    expect(await names(sub)).not.toContain('mcp__lazy__echo');
    const subGrant = await sub.execute('activate_tools', { groups: ['config'] });
    // The grant says it lasts only as long as the sub-agent.
    expect(subGrant.result).toMatchObject({ json: { scope: { kind: 'frame', frame: 'task-7' } } });
    expect(subGrant.text).toContain('until this sub-agent ends');
    expect(await names(sub)).toContain('register_mcp');
    expect(await names(root)).not.toContain('register_mcp');
    await sub.end();
    expect(await names(sub)).not.toContain('register_mcp');
    expect(await names(root)).toContain('mcp__lazy__echo');
    const audit = (await h.audit({ actor: 'chat-2' })).entries.map((e) => [e.action, e.details]);
    expect(audit).toEqual([
      ['end', { frame: 'task-7', grantsRemoved: 1 }],
      ['grant', { group: 'config', frame: 'task-7' }],
      ['grant', { group: 'lazy', frame: '' }],
    ]);
  });

  it('finds grants again after a restart', async () => {
    const h = await start();
    await AgentSession.open(h, 'chat-3').activate(['lazy']);
    await AgentSession.open(h, 'chat-3').subAgent('f').activate(['lazy']);
    await h.close();
    host = undefined;
    const again = await start();
    expect(await names(AgentSession.open(again, 'chat-3'))).toContain('mcp__lazy__echo');
    expect(await AgentSession.open(again, 'chat-3').subAgent('f').granted()).toEqual(new Set(['lazy']));
    expect(await names(AgentSession.open(again, 'other'))).not.toContain('mcp__lazy__echo');
  });

  it('searches every visible tool and says which are loaded', async () => {
    const h = await start();
    const session = AgentSession.open(h, 'chat-4');
    const found = await session.execute('search_tools', { query: 'echo back text', limit: 5 });
    const json = (found.result as { json: { tools: { name: string; loaded: boolean }[]; note?: string } })
      .json;
    expect(json.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['mcp__lazy__echo', 'mcp__eager__echo']),
    );
    expect(json.tools.some((t) => t.name.startsWith('mcp__secret__'))).toBe(false);
    expect(json.tools.find((t) => t.name === 'mcp__eager__echo')?.loaded).toBe(true);
    expect(json.tools.find((t) => t.name === 'mcp__lazy__echo')?.loaded).toBe(false);
    expect(json.note).toContain('["lazy"]');
    expect((await session.execute('search_tools', {})).result.isError).toBe(true);
    // Each hit says why it matched; ranking internals (score, coverage) stay out.
    const echo = (found.result as { json: { tools: Record<string, unknown>[] } }).json.tools[0]!;
    expect(echo.why).toEqual(expect.stringContaining('echo'));
    expect(echo).not.toHaveProperty('score');
    expect(echo).not.toHaveProperty('coverage');
  });

  it('indexes what a live server says about itself: its instructions beside the configured description', async () => {
    const h = await start();
    const servers = serverInfoOf({ host: h } as MetaContext, h.catalog());
    expect(servers.find((s) => s.name === 'lazy')).toEqual({
      name: 'lazy',
      description: 'Kitchen lazy',
      instructions: 'Kitchen sink fixture server',
    });
  });

  it('ranks with a configured embeddings endpoint, and without it, saying why, when it fails', async () => {
    const endpoint = await startScriptedEmbeddings([['florp', 'echo']]);
    try {
      const h = await start();
      useSearchEmbeddings(
        h,
        toolEmbeddingsFromConfig({ url: endpoint.url, model: 'scripted', timeoutMs: 10_000 }, {}),
      );
      const session = AgentSession.open(h, 'chat-emb');
      type Found = { json: { tools: { name: string; why: string }[]; note?: string } };
      const found = (await session.execute('search_tools', { query: 'florp' })).result as unknown as Found;
      expect(found.json.tools[0]?.name).toMatch(/__echo$/);
      expect(found.json.tools[0]?.why).toContain('by embedding');
      endpoint.mode = 'error';
      const fallback = (await session.execute('search_tools', { query: 'echo back text' }))
        .result as unknown as Found;
      expect(fallback.json.tools[0]?.name).toMatch(/__echo$/);
      expect(fallback.json.note).toContain('Embeddings not used');
    } finally {
      await endpoint.close();
    }
  });

  it('says when a search found nothing or only weak matches, and how to search instead', async () => {
    const h = await start();
    const session = AgentSession.open(h, 'chat-4b');
    const none = await session.execute('search_tools', { query: 'zeppelin quasar' });
    const noneJson = (none.result as { json: { tools: unknown[]; note?: string } }).json;
    expect(noneJson.tools).toEqual([]);
    expect(noneJson.note).toMatch(/^No tool matched\./);
    expect(noneJson.note).toContain('eager, lazy');
    expect(noneJson.note).toContain('activate_tools');
    const weak = await session.execute('search_tools', { query: 'echo zeppelin quasar nebula' });
    const weakJson = (weak.result as { json: { tools: unknown[]; note?: string } }).json;
    expect(weakJson.tools.length).toBeGreaterThan(0);
    expect(weakJson.note).toMatch(/^Only weak matches\./);
    const good = await session.execute('search_tools', { query: 'echo text' });
    expect((good.result as { json: { note?: string } }).json.note ?? '').not.toContain('weak');
  });

  it('lists and reads resources, gets prompts, and runs prompts as slash commands', async () => {
    const h = await start();
    const session = AgentSession.open(h, 'chat-5');
    const ambiguous = await session.execute('mcp_content', { uri: 'kitchen://text' });
    expect(ambiguous.text).toContain('pass "server"');
    const read = await session.execute('mcp_content', {
      uri: 'kitchen://text',
      server: 'lazy',
    });
    expect(read.text).toBe('hello text');
    // Neither a uri nor a prompt: resources and prompts are listed together.
    const listed = await session.execute('mcp_content', { server: 'eager' });
    expect(listed.text).toContain('kitchen://blob');
    expect(listed.result).toMatchObject({ json: { prompts: [{ server: 'eager', name: 'greet' }] } });
    expect(listed.text).not.toContain('"server":"lazy"');
    const unknown = await session.execute('mcp_content', { server: 'nope' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toContain('No server named "nope"');
    const missing = await session.execute('mcp_content', { prompt: 'greet', server: 'lazy' });
    expect(missing.text).toContain('needs the argument(s) name');
    const got = await session.execute('mcp_content', {
      prompt: 'greet',
      server: 'lazy',
      arguments: { name: 'Ada' },
    });
    expect(got.result).toMatchObject({ json: { messages: [{ role: 'user', text: 'Hello, Ada!' }] } });

    expect(session.slashCommands().map((c) => c.command)).toEqual([
      '/mcp__eager__greet',
      '/mcp__lazy__greet',
    ]);
    expect(await session.runSlashCommand('/mcp__lazy__greet {"name": "Lin"}')).toEqual([
      { role: 'user', text: 'Hello, Lin!' },
    ]);
    expect(await session.runSlashCommand('hello there')).toBeUndefined();
    await expect(session.runSlashCommand('/mcp__lazy__greet')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(session.runSlashCommand('/mcp__secret__greet {"name":"x"}')).rejects.toThrow(/No prompt/);
  });

  it('renders the server list into the system prompt', async () => {
    const h = await start();
    const session = AgentSession.open(h, 'chat-6');
    const prompt = await session.systemPrompt(`You help.\n${MCP_LIST_TAG}\nBe brief.`);
    expect(prompt).toMatch(/Loaded[^\n]*\n- eager \(\d+ tools\) — Kitchen eager/);
    expect(prompt).toMatch(/Available[^\n]*\n- lazy \(\d+ tools\) — Kitchen lazy/);
    expect(prompt).not.toContain('secret');
    expect(prompt.endsWith('Be brief.')).toBe(true);
  });

  it('manages servers through the config group, under policy', async () => {
    const h = await start([kitchen('lazy')]);
    const session = AgentSession.open(h, 'chat-7');
    expect((await session.execute('register_mcp', { name: 'x' })).text).toContain(
      'activate_tools with ["config"]',
    );
    await session.activate(['config']);
    const registered = await session.execute('register_mcp', {
      name: 'added',
      command: process.execPath,
      args: [kitchenSinkBin],
      description: 'added by the agent',
    });
    expect(registered.result).toMatchObject({ json: { registered: 'added', transport: 'stdio' } });
    await catalogHas(h, 'mcp__added__echo');
    const list = await session.execute('list_mcp', {});
    expect(list.text).toContain('"name":"added"');
    const refused = await session.execute('register_mcp', {
      name: 'meta',
      url: 'http://169.254.169.254/mcp',
    });
    expect(refused.text).toContain('metadata address');
    expect((await session.execute('delete_mcp', { name: 'added' })).result.isError).toBe(false);
    expect(h.servers().map((s) => s.name)).toEqual(['lazy']);
    const audited = (await h.audit({ actor: 'chat-7', action: 'tool_call' })).entries.map((e) => [
      (e.details as { tool: string }).tool,
      e.outcome,
    ]);
    // Every management call is audited, reading the list included (newest first).
    expect(audited).toEqual([
      ['delete_mcp', 'ok'],
      ['register_mcp', 'error'],
      ['list_mcp', 'ok'],
      ['register_mcp', 'ok'],
    ]);
  });

  it('leaves out tools policy denies, and reports a declined call to the model', async () => {
    const h = await start([kitchen('lazy', 'eager')], {
      mode: 'auto-edit',
      rules: [{ server: 'lazy', tool: 'add', effect: 'deny' }],
    });
    const session = AgentSession.open(h, 'chat-8');
    const tools = await names(session);
    expect(tools).toContain('mcp__lazy__echo');
    expect(tools).not.toContain('mcp__lazy__add');
    const declined = await session.execute('mcp__lazy__echo', { text: 'x' });
    expect(declined.result.isError).toBe(true);
    expect(declined.text).toMatch(/^APPROVAL_DECLINED: /);
  });
});
