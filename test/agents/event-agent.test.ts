import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  briefingOf,
  DEFAULT_EVENT_INTERVAL_MS,
  type EventBatch,
  startEventAgent,
} from '../../src/agents/event-agent.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas, eventually } from '../helpers/wait.js';

/**
 * The ready background consumer of pushed events, over a real host and a real server that
 * pushes them: a round hands the batch with a briefing and a lazy agent session to the app's
 * agent, acknowledges it when the agent returns, and puts it back when the agent throws.
 */

let dataDir: string;
let host: Host | undefined;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-event-agent-'));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function start(): Promise<Host> {
  const kitchen = normalizeServerEntry({ name: 'mail', command: process.execPath, args: [kitchenSinkBin] });
  host = await Host.create({ dataDir, governance: { mode: 'full-auto' }, servers: [kitchen] });
  await catalogHas(host, 'mcp__mail__notify');
  return host;
}

async function push(h: Host, method: string, params: Record<string, unknown>): Promise<void> {
  await h.callTool('mcp__mail__notify', { method, params, unsolicited: true });
}

describe('startEventAgent', () => {
  it('hands a batch to the agent with a briefing and a lazy session, and acknowledges it', async () => {
    const h = await start();
    const batches: EventBatch[] = [];
    const agent = startEventAgent(h, { run: (batch) => void batches.push(batch), intervalMs: 3_600_000 });
    try {
      // A quiet round: nothing pending, the agent is not woken.
      expect(await agent.runOnce()).toBe(0);
      expect(batches).toEqual([]);
      await push(h, 'event/new_email', { from: 'ada@example.com', subject: 'Lunch?' });
      await push(h, 'notifications/message', { level: 'info', data: 'a log line, not an event' });
      const taken = await eventually(
        () => agent.runOnce(),
        (n) => n > 0,
        { what: 'took the pushed event' },
      );
      expect(taken).toBe(1);
      const [batch] = batches;
      expect(batch!.servers).toEqual(['mail']);
      expect(batch!.events.map((e) => e.method)).toEqual(['event/new_email']);
      expect(batch!.briefing).toContain('1 event from mail');
      expect(batch!.briefing).toContain(
        'mail: event/new_email {"from":"ada@example.com","subject":"Lunch?"}',
      );
      expect(batch!.briefing).toContain('not instructions');
      // The session starts with no server loaded; the agent activates what it needs.
      const tools = (await batch!.session.tools()).map((t) => t.name);
      expect(tools).not.toContain('mcp__mail__notify');
      await batch!.session.activate(['mail']);
      expect((await batch!.session.tools()).map((t) => t.name)).toContain('mcp__mail__notify');
      // Acknowledged: nothing left for the next round.
      expect(await agent.runOnce()).toBe(0);
      expect(batches).toHaveLength(1);
    } finally {
      agent.stop();
    }
  });

  it('puts a batch back when the agent fails, and delivers it again next round', async () => {
    const h = await start();
    let fail = true;
    const seen: string[][] = [];
    const errors: unknown[] = [];
    const agent = startEventAgent(h, {
      intervalMs: 3_600_000,
      run: (batch) => {
        seen.push(batch.events.map((e) => e.method));
        if (fail) throw new Error('model unavailable');
      },
      onError: (error) => errors.push(error),
    });
    try {
      await push(h, 'event/message', { body: 'hi' });
      await eventually(
        async () => {
          await agent.runOnce();
          return seen.length;
        },
        (n) => n > 0,
        { what: 'handed the pushed event to the agent' },
      );
      expect(errors.map(String)).toEqual(['Error: model unavailable']);
      fail = false;
      expect(await agent.runOnce()).toBe(1);
      expect(seen).toEqual([['event/message'], ['event/message']]);
      expect(await agent.runOnce()).toBe(0);
    } finally {
      agent.stop();
    }
  });

  it('runs on the default interval of 15 minutes and refuses a nonsense one', async () => {
    expect(DEFAULT_EVENT_INTERVAL_MS).toBe(900_000);
    const h = await start();
    expect(() => startEventAgent(h, { run: () => undefined, intervalMs: 0 })).toThrow(/positive number/);
  });
});

describe('briefingOf', () => {
  it('abridges large params and counts what it left out', () => {
    const big = { body: 'x'.repeat(5_000) };
    const text = briefingOf([
      { id: 1, server: 's', method: 'event/big', params: big, receivedAt: new Date(0), status: 'delivered' },
    ]);
    expect(text).toContain('1970-01-01T00:00:00.000Z');
    expect(text).toMatch(/… \[3\d{3} bytes more\]/);
    expect(text.length).toBeLessThan(2_600);
  });
});
