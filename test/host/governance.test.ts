import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GovernanceConfig } from '../../src/core/config/governance-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import type { ApprovalAnswer, ApprovalRequest } from '../../src/host/governance/governor.js';
import { Host } from '../../src/host/host.js';
import { openSqliteStore } from '../../src/storage/database.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * The governed call path end to end: a real server, a real store, policy deciding, a scripted
 * approver answering, and the audit log read back. `echo` is annotated read-only; `add` is not.
 */
let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-gov-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

function kitchen(trust: 'trusted' | 'untrusted' = 'untrusted') {
  return normalizeServerEntry({
    name: 'kitchen',
    command: process.execPath,
    args: [kitchenSinkBin],
    protocol: 'legacy',
    trust,
  });
}

/** An approver that records what it was asked and answers from a script. */
function scriptedApprover(answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    askApproval: async (request: ApprovalRequest) => {
      asked.push(request);
      return answers.shift() ?? { approved: false as const, reason: 'script ran out' };
    },
  };
}

async function start(
  options: { governance?: Partial<GovernanceConfig>; answers?: ApprovalAnswer[]; trust?: 'trusted' } = {},
) {
  const approver = scriptedApprover(options.answers ?? []);
  host = await Host.create({
    dataDir,
    servers: [kitchen(options.trust)],
    ...(options.governance && { governance: options.governance }),
    askApproval: approver.askApproval,
  });
  const deadline = Date.now() + 20_000;
  while (!host.catalog().lookup('mcp__kitchen__add')) {
    if (Date.now() > deadline) throw new Error('kitchen never reached the catalog');
    await new Promise((r) => setTimeout(r, 20));
  }
  return { host, asked: approver.asked };
}

describe('governed calls', () => {
  it('asks before an untrusted tool in auto-edit mode, and a decline stops the call', async () => {
    const { host, asked } = await start({ answers: [{ approved: false, reason: 'user' }] });
    await expect(host.callTool('mcp__kitchen__add', { a: 1, b: 2 }, { session: 's1' })).rejects.toMatchObject(
      { code: 'APPROVAL_DECLINED' },
    );
    expect(asked).toEqual([
      expect.objectContaining({ server: 'kitchen', tool: 'add', session: 's1', args: { a: 1, b: 2 } }),
    ]);
    // An untrusted server's readOnlyHint is ignored: echo asks too.
    await expect(host.callTool('mcp__kitchen__echo', { text: 'x' })).rejects.toMatchObject({
      code: 'APPROVAL_DECLINED',
    });
    const audit = await host.audit({ actor: 's1' });
    expect(audit.entries).toEqual([
      expect.objectContaining({
        action: 'tool_call',
        server: 'kitchen',
        outcome: 'declined',
        details: expect.objectContaining({ tool: 'add', decision: 'ask', risk: 'exec', answer: 'user' }),
      }),
    ]);
  });

  it("lets a trusted server's read-only tool through and still asks before the rest", async () => {
    const { host, asked } = await start({ trust: 'trusted', answers: [{ approved: true, always: false }] });
    expect((await host.callTool('mcp__kitchen__echo', { text: 'hi' })).text).toBe('hi');
    expect(asked).toEqual([]);
    expect(await host.callTool('mcp__kitchen__add', { a: 2, b: 3 })).toMatchObject({ json: { sum: 5 } });
    expect(asked.map((a) => a.tool)).toEqual(['add']);
    const entries = (await host.audit()).entries;
    expect(entries.map((e) => [(e.details as { tool: string }).tool, e.outcome])).toEqual([
      ['add', 'ok'],
      ['echo', 'ok'],
    ]);
    expect(entries[0]!.details).toMatchObject({ approved: true, decision: 'ask' });
    expect(entries[1]!.details).toMatchObject({ approved: false, decision: 'allow', risk: 'read_only' });
    expect((entries[0]!.details as { resultBytes: number }).resultBytes).toBeGreaterThan(10);
    // The audit log holds no arguments.
    expect(JSON.stringify(entries)).not.toContain('"a":2');
  });

  it('remembers "always allow" per session, across a restart', async () => {
    const first = await start({ answers: [{ approved: true, always: true }] });
    await first.host.callTool('mcp__kitchen__add', { a: 1, b: 1 }, { session: 'agent-1' });
    await first.host.callTool('mcp__kitchen__add', { a: 1, b: 1 }, { session: 'agent-1' });
    expect(first.asked).toHaveLength(1);
    await first.host.close();
    host = undefined;

    const second = await start({ answers: [{ approved: false, reason: 'user' }] });
    expect(
      await second.host.callTool('mcp__kitchen__add', { a: 4, b: 1 }, { session: 'agent-1' }),
    ).toMatchObject({ json: { sum: 5 } });
    expect(second.asked).toEqual([]);
    // Another session has its own list.
    await expect(
      second.host.callTool('mcp__kitchen__add', { a: 4, b: 1 }, { session: 'agent-2' }),
    ).rejects.toMatchObject({ code: 'APPROVAL_DECLINED' });
  });

  it('denies by rule and by a non-interactive profile before anything is asked or sent', async () => {
    const { host, asked } = await start({
      governance: {
        mode: 'full-auto',
        profile: 'daemon',
        rules: [
          { server: 'kitchen', tool: 'e*', effect: 'allow' },
          { server: '*', tool: 'echo', effect: 'deny' },
        ],
      },
    });
    await expect(host.callTool('mcp__kitchen__echo', { text: 'x' })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('denied by the rule */echo'),
    });
    await expect(host.callTool('mcp__kitchen__add', { a: 1, b: 1 })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('daemon profile'),
    });
    expect((await host.callTool('mcp__kitchen__embedded', {})).isError).toBe(false);
    expect(asked).toEqual([]);
    expect((await host.audit()).entries.map((e) => e.outcome)).toEqual(['ok', 'denied', 'denied']);
  });

  it('asks about a changed definition even in full-auto, until "always" re-approves it', async () => {
    const store = await openSqliteStore({ file: join(dataDir, 'switchboard.db') });
    await store.pins.record('kitchen', 'add', 'a-hash-from-an-earlier-definition');
    await store.close();
    const { host, asked } = await start({
      governance: { mode: 'full-auto' },
      answers: [{ approved: true, always: true }],
    });
    const deadline = Date.now() + 10_000;
    while ((await host.changedTools()).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await host.callTool('mcp__kitchen__add', { a: 1, b: 1 });
    expect(asked.map((a) => a.reason)).toEqual([
      expect.stringContaining('definition of kitchen/add changed'),
    ]);
    await host.callTool('mcp__kitchen__add', { a: 1, b: 1 });
    expect(asked).toHaveLength(1);
    expect(await host.changedTools()).toEqual([]);
  });

  it('asks through the Inbox when a front-end is attached, and declines at once when none is', async () => {
    host = await Host.create({ dataDir, servers: [kitchen()] });
    await catalogHas(host, 'mcp__kitchen__add');
    const started = Date.now();
    await expect(host.callTool('mcp__kitchen__add', { a: 1, b: 2 })).rejects.toMatchObject({
      code: 'APPROVAL_DECLINED',
      message: expect.stringContaining('no approver is attached'),
    });
    expect(Date.now() - started).toBeLessThan(2_000);

    const inbox = host.inbox;
    const seen: string[] = [];
    inbox.on('added', (item) => {
      seen.push(`${item.kind} ${item.server}/${item.tool} ${item.preview}`);
      inbox.resolve(item.id, 'accept');
    });
    expect(await host.callTool('mcp__kitchen__add', { a: 1, b: 2 })).toMatchObject({ json: { sum: 3 } });
    expect(seen).toEqual(['approval kitchen/add {"a":1,"b":2}']);
    expect(inbox.list()).toEqual([]);
  });
});

describe('audit of what is not a tool call', () => {
  it('records resource reads and prompt gets with their session and outcome, failures included', async () => {
    const { host } = await start({ governance: { mode: 'full-auto' } });
    await host.readResource('kitchen', 'kitchen://text', { session: 'reader' });
    await host.getPrompt('kitchen', 'greet', { name: 'Ada' }, { session: 'reader' });
    await expect(
      host.readResource('kitchen', 'kitchen://nothing-here', { session: 'reader' }),
    ).rejects.toThrow();
    const entries = (await host.audit({ actor: 'reader' })).entries;
    expect(entries.map((e) => [e.action, e.server, e.outcome])).toEqual([
      ['resource_read', 'kitchen', 'error'],
      ['prompt_get', 'kitchen', 'ok'],
      ['resource_read', 'kitchen', 'ok'],
    ]);
    expect(entries[2]!.details).toMatchObject({ uri: 'kitchen://text' });
    expect(entries[1]!.details).toMatchObject({ prompt: 'greet' });
    expect(entries[0]!.details).toMatchObject({ uri: 'kitchen://nothing-here', error: expect.any(String) });
  });

  it('records every change of the server list with who made it, whichever way it came in', async () => {
    const { host } = await start({ governance: { mode: 'full-auto' } });
    const actor = { session: 'ops', via: 'jsonl' };
    await host.register({ name: 'extra', command: process.execPath, args: [kitchenSinkBin] }, 'jsonl', actor);
    await host.setEnabled('extra', false, actor);
    await host.unregister('extra', actor);
    await expect(host.setEnabled('nobody', true, actor)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const entries = (await host.audit({ actor: 'ops' })).entries;
    expect(entries.map((e) => [e.action, e.server, e.outcome])).toEqual([
      ['server_enable', 'nobody', 'error'],
      ['server_remove', 'extra', 'ok'],
      ['server_disable', 'extra', 'ok'],
      ['server_register', 'extra', 'ok'],
    ]);
    expect(entries[3]!.details).toMatchObject({ source: 'jsonl', via: 'jsonl' });
  });
});
