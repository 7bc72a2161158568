import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { commandLine, descendants, isAlive } from './process-tree.js';

/**
 * `switchboard host --jsonl` as a front-end drives it: a real child process, JSON lines in and
 * out, a real upstream (the kitchen sink) registered, called, approved, asked, toggled and
 * removed; malformed lines answered with errors while the process keeps serving.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
const MESSAGE_TYPES = ['mcp_servers', 'result', 'resolved', 'inbox', 'inbox_resolved', 'error'];
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-host-'));
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      // Calls to an untrusted server ask first: the approvals come to the front-end.
      governance: { mode: 'auto-edit' },
      servers: { filed: { command: process.execPath, args: [kitchenSinkBin], enabled: false } },
    }),
  );
});

afterAll(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

type Message = Record<string, unknown> & { type: string };
type Server = { name: string; state: string; tools: { name: string; description: string }[] };

/** A front-end: writes request lines, reads message lines, waits for the one it needs. */
function startHost() {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', dir, '--data-dir', join(dir, 'data'), 'host', '--jsonl'],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } },
  );
  children.push(child);
  const messages: Message[] = [];
  const raw: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    raw.push(line);
    messages.push(JSON.parse(line) as Message);
    for (const wake of waiters) wake();
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let cursor = 0;
  return {
    child,
    raw,
    exited,
    send(line: object | string) {
      child.stdin!.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    },
    /** The next message (after the last one waited for) that matches; fails after 20 s. */
    next(what: string, match: (m: Message) => boolean): Promise<Message> {
      return new Promise((resolve, reject) => {
        const look = () => {
          for (; cursor < messages.length; cursor++) {
            const m = messages[cursor]!;
            if (match(m)) {
              cursor++;
              cleanup();
              resolve(m);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`never got ${what}; last lines:\n${raw.slice(-5).join('\n')}\n${stderr.join('\n')}`),
          );
        }, 20_000);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(look);
        };
        waiters.add(look);
        look();
      });
    },
  };
}

const servers = (m: Message) => m.servers as Server[];
const server = (m: Message, name: string) => servers(m).find((s) => s.name === name);
const answerTo = (id: unknown) => (m: Message) => m.id === id;
const kitchen = { name: 'kitchen', command: process.execPath, args: [kitchenSinkBin] };

describe('switchboard host --jsonl', () => {
  it('lists, sets, calls with approvals and elicitations, toggles and removes servers; EOF closes them', async () => {
    const host = startHost();
    const first = await host.next('the first server list', (m) => m.type === 'mcp_servers');
    expect(servers(first)).toEqual([
      {
        name: 'filed',
        transport: 'stdio',
        state: 'disabled',
        source: join(dir, 'switchboard.json'),
        tools: [],
      },
    ]);
    host.send({ op: 'mcp_list', id: 'l1' });
    expect(await host.next('the list', answerTo('l1'))).toMatchObject({ type: 'mcp_servers' });

    host.send({ op: 'mcp_set', id: 's1', server: kitchen });
    const set = await host.next('the set answer', answerTo('s1'));
    expect(set.type).toBe('mcp_servers');
    expect(server(set, 'kitchen')).toMatchObject({ source: 'jsonl' });
    const connected = await host.next('kitchen connected with tools', (m) => {
      const k = m.type === 'mcp_servers' ? server(m, 'kitchen') : undefined;
      return k?.state === 'connected' && k.tools.some((t) => t.name === 'echo');
    });
    expect(server(connected, 'kitchen')!.tools).toContainEqual({
      name: 'echo',
      description: expect.any(String),
    });

    // An untrusted server's call needs an approval: it arrives as an inbox line to resolve.
    host.send({ op: 'call', id: 'c1', server: 'kitchen', tool: 'echo', arguments: { text: 'hello' } });
    const approval = await host.next('the approval', (m) => m.type === 'inbox');
    expect(approval.item).toMatchObject({ kind: 'approval', server: 'kitchen', tool: 'echo' });
    const itemId = (approval.item as { id: string }).id;
    host.send({ op: 'resolve', id: 'r1', itemId, answer: 'approve' });
    expect(await host.next('the item resolved', (m) => m.type === 'inbox_resolved')).toEqual({
      type: 'inbox_resolved',
      itemId,
      outcome: { action: 'accept', always: false },
    });
    expect(await host.next('the resolve answer', answerTo('r1'))).toEqual({
      type: 'resolved',
      id: 'r1',
      itemId,
      action: 'accept',
    });
    const result = await host.next('the call result', answerTo('c1'));
    expect(result).toMatchObject({
      type: 'result',
      tool: 'mcp__kitchen__echo',
      result: { isError: false, content: [{ type: 'text', text: 'hello' }] },
    });

    // A server's question during a call (form elicitation) comes the same way; the content goes back.
    host.send({ op: 'call', id: 'c2', tool: 'mcp__kitchen__confirm' });
    const ask = await host.next('the approval of confirm', (m) => m.type === 'inbox');
    host.send({ op: 'resolve', id: 'r2', itemId: (ask.item as { id: string }).id, answer: 'always' });
    const question = await host.next('the elicitation', (m) => m.type === 'inbox');
    expect(question.item).toMatchObject({ kind: 'elicitation', server: 'kitchen', mode: 'form' });
    const questionId = (question.item as { id: string }).id;
    host.send({ op: 'resolve', id: 'r3', itemId: questionId, answer: 'always' });
    expect(await host.next('the refused answer', answerTo('r3'))).toMatchObject({
      type: 'error',
      error: { code: 'INVALID_FIELD', message: expect.stringContaining('is an elicitation') },
    });
    host.send({
      op: 'resolve',
      id: 'r4',
      itemId: questionId,
      content: { confirm: true, name: 'Ada', color: 'red' },
    });
    const confirmed = await host.next('the confirm result', answerTo('c2'));
    const text = (confirmed.result as { content: { text: string }[] }).content[0]!.text;
    expect(JSON.parse(text)).toEqual({
      action: 'accept',
      content: { confirm: true, name: 'Ada', color: 'red' },
    });

    host.send({ op: 'mcp_toggle', id: 't1', name: 'kitchen', enabled: false });
    const toggled = await host.next('the toggle answer', answerTo('t1'));
    expect(server(toggled, 'kitchen')).toMatchObject({ state: 'disabled', tools: [] });
    host.send({ op: 'call', id: 'c3', server: 'kitchen', tool: 'echo', arguments: { text: 'x' } });
    expect(await host.next('the failed call', answerTo('c3'))).toMatchObject({
      type: 'error',
      error: { code: expect.stringMatching(/^(NOT_FOUND|UPSTREAM_DISCONNECTED)$/) },
    });

    host.send({ op: 'mcp_remove', id: 'x1', name: 'kitchen' });
    const removed = await host.next('the remove answer', answerTo('x1'));
    expect(servers(removed).map((s) => s.name)).toEqual(['filed']);
    host.send({ op: 'mcp_remove', id: 'x2', name: 'filed' });
    expect(await host.next('the refused remove', answerTo('x2'))).toMatchObject({
      type: 'error',
      error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('"op":"mcp_toggle"') },
    });

    // End of input with a live upstream: the host closes it and exits.
    host.send({ op: 'mcp_set', id: 's2', server: kitchen });
    await host.next('kitchen connected again', (m) => server(m, 'kitchen')?.state === 'connected');
    const upstream = descendants(host.child.pid!).filter((pid) => commandLine(pid).includes('kitchen-sink'));
    expect(upstream.length).toBeGreaterThan(0);
    host.child.stdin!.end();
    expect(await host.exited).toBe(0);
    expect(upstream.filter(isAlive)).toEqual([]);
    // stdout held protocol lines only.
    for (const line of host.raw) expect(MESSAGE_TYPES).toContain((JSON.parse(line) as Message).type);
  });

  it('answers each malformed line with an error naming the fix, and keeps serving', async () => {
    const host = startHost();
    await host.next('the first server list', (m) => m.type === 'mcp_servers');
    const bad: [string, string, RegExp][] = [
      ['this is not json', 'PARSE_ERROR', /not JSON/],
      ['[{"op":"mcp_list"}]', 'INVALID_REQUEST', /an array, not an object/],
      ['{"op":"mcp_lsit","id":"u"}', 'UNKNOWN_OP', /Did you mean "mcp_list"\?/],
      ['{"op":"mcp_toggle","name":"filed"}', 'INVALID_FIELD', /field "enabled" is missing/],
      ['{"op":"resolve","itemId":"nope","answer":"approve"}', 'NOT_FOUND', /No inbox item "nope"/],
    ];
    for (const [index, [line, code, message]] of bad.entries()) {
      host.send(line);
      const error = await host.next(`the error for ${line}`, (m) => m.type === 'error');
      expect(error.error, line).toEqual({ code, message: expect.stringMatching(message) });
      host.send({ op: 'mcp_list', id: index });
      expect(await host.next(`the list after ${line}`, answerTo(index))).toMatchObject({
        type: 'mcp_servers',
      });
    }
    expect(host.child.exitCode).toBeNull();
    host.child.stdin!.end();
    expect(await host.exited).toBe(0);
  });
});
