import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineSplitter, type SplitLine } from '../../src/cli/jsonl/line-splitter.js';
import { OPS, parseRequestLine } from '../../src/cli/jsonl/requests.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { excerpt, fuzzSettings, hostileValue, MIN_CASES, Random } from './fuzz-random.js';
import { answerTo, killJsonlHosts, startJsonlHost } from './jsonl-host.js';

/**
 * The JSON-lines host protocol under random input: the line splitter against a model of it
 * (random chunking, CRLF, blank, huge and partial lines), the request parser on random lines
 * (not JSON, JSON of wrong shapes, every op with random fields), and a real `host --jsonl`
 * fed all of that: it must answer every line with a message, stay alive, and answer a final
 * `mcp_list`. Seeded and bounded; `fuzz-random.ts` says how to run it longer.
 */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  mcp_list: ['id'],
  mcp_set: ['id', 'server'],
  mcp_remove: ['id', 'name'],
  mcp_toggle: ['id', 'name', 'enabled'],
  call: ['id', 'tool', 'server', 'arguments'],
  resolve: ['id', 'itemId', 'answer', 'content'],
};
const ENTRY_FIELDS = [
  'name',
  'command',
  'args',
  'env',
  'url',
  'headers',
  'transport',
  'api_key',
  'auth',
  'timeouts',
  'enabled',
  'tools',
  'roots',
  'cwd',
];
const PROTOCOL_CODES = ['PARSE_ERROR', 'INVALID_REQUEST', 'INVALID_FIELD', 'UNKNOWN_OP'];

/** A random request object: an op (or a near miss) with random fields, some of them right. */
function request(r: Random): Record<string, unknown> {
  const op = r.chance(0.9) ? r.pick(OPS) : r.pick(['mcp_lsit', 'MCP_SET', '', 'call ', 'x'.repeat(10_000)]);
  const out: Record<string, unknown> = { op };
  for (const field of FIELDS[op] ?? ['id']) if (r.chance(0.7)) out[field] = fieldValue(r, field);
  // Mostly well-formed registrations too, so entries get as far as the host.
  if (op === 'mcp_set' && r.chance(0.6)) out.server = entry(r);
  if (r.chance(0.05)) out[r.pick(['extra', '__proto__', 'constructor', 'argumnets'])] = hostileValue(r);
  return out;
}

function fieldValue(r: Random, field: string): unknown {
  if (r.chance(0.15)) return hostileValue(r);
  switch (field) {
    case 'id':
      return r.chance(0.5) ? r.int(1000) : r.text(r.int(10));
    case 'server':
      return r.chance(0.3) ? r.text(6) : entry(r);
    case 'enabled':
      return r.chance(0.5);
    case 'answer':
      return r.pick(['approve', 'always', 'decline', 'accept', 'cancel', 'maybe']);
    case 'arguments':
    case 'content':
      return { city: r.text(5), deep: hostileValue(r) };
    default:
      return r.chance(0.2) ? 'a'.repeat(300) : r.text(1 + r.int(12));
  }
}

function entry(r: Random): Record<string, unknown> {
  const name = r.chance(0.8) ? `s${r.int(50)}` : r.chance(0.5) ? 'a'.repeat(300) : hostileValue(r);
  const out: Record<string, unknown> = { name };
  for (const field of ENTRY_FIELDS) if (r.chance(0.08)) out[field] = hostileValue(r);
  if (r.chance(0.5)) out.command = 'node';
  return out;
}

/** A random input line: a request, JSON of another shape, or not JSON at all. */
function line(r: Random): string {
  switch (r.int(8)) {
    case 0:
      return r.text(r.int(200));
    case 1:
      return JSON.stringify(hostileValue(r));
    case 2: {
      const text = JSON.stringify(request(r));
      return text.slice(0, r.int(text.length));
    }
    default:
      return JSON.stringify(request(r));
  }
}

/** What the splitter must produce for a whole stream (the model it is held to). */
function model(stream: string, max: number): SplitLine[] {
  const pieces = stream.split('\n');
  const out: SplitLine[] = [];
  for (const piece of pieces) {
    if (piece.length > max) out.push({ kind: 'too_long', length: piece.length });
    else {
      const text = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
      if (text.trim() !== '') out.push({ kind: 'line', text });
    }
  }
  return out;
}

const SPLITTER = fuzzSettings('line splitter fuzz', { runs: 3000, ms: 1500 });
const REQUESTS = fuzzSettings('request fuzz', { runs: 5000, ms: 1500 });
const HOST = fuzzSettings('jsonl host fuzz', { runs: 250, ms: 60_000 });

describe('JSON-lines fuzz, pure parts', () => {
  it(
    'the line splitter matches its model for any stream cut into any chunks',
    async () => {
      const { seed, runs, ms } = SPLITTER;
      const r = new Random(seed);
      const started = performance.now();
      let cases = 0;
      for (; cases < runs && (cases < MIN_CASES || performance.now() - started < ms); cases++) {
        if (cases % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
        const max = r.pick([8, 64, 1000]);
        const parts = Array.from({ length: r.int(12) }, () =>
          r.pick([line(r), '', ' ', '\r', 'x'.repeat(r.int(2 * max)), `${line(r)}\r`]),
        );
        const stream = parts.join('\n') + (r.chance(0.5) ? '\n' : '');
        const splitter = new LineSplitter(max);
        const got: SplitLine[] = [];
        for (let at = 0; at < stream.length; ) {
          const size = 1 + r.int(r.chance(0.2) ? stream.length : 16);
          got.push(...splitter.push(stream.slice(at, at + size)));
          at += size;
        }
        got.push(...splitter.end());
        expect(got, `seed ${seed}, case ${cases}: ${excerpt(stream)}`).toEqual(model(stream, max));
      }
    },
    SPLITTER.ms + 30_000,
  );

  it(
    'every line parses into a request or a protocol error that says what to do',
    async () => {
      const { seed, runs, ms } = REQUESTS;
      const r = new Random(seed + 1);
      const started = performance.now();
      let cases = 0;
      let requests = 0;
      const failures: string[] = [];
      for (
        ;
        cases < runs && (cases < MIN_CASES || performance.now() - started < ms) && failures.length < 5;
        cases++
      ) {
        if (cases % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
        const text = line(r);
        const where = `seed ${seed}, case ${cases}: ${excerpt(text)}`;
        try {
          const parsed = parseRequestLine(text);
          if (!parsed.ok) {
            const { code, message } = parsed.error;
            if (!PROTOCOL_CODES.includes(code) || message.length === 0 || message.length > 2000)
              failures.push(`${where}: ${code} ${message.slice(0, 200)} (${message.length} characters)`);
            continue;
          }
          requests++;
          if (parsed.request.op !== 'mcp_set') continue;
          try {
            normalizeServerEntry(parsed.request.server, { file: 'jsonl' });
          } catch (error) {
            if (!isSwitchboardError(error, 'CONFIG_INVALID') || error.message.length > 2000)
              failures.push(`${where}: the entry threw ${String(error).slice(0, 300)}`);
          }
        } catch (error) {
          failures.push(`${where}: parseRequestLine threw ${String(error).slice(0, 300)}`);
        }
      }
      expect(failures).toEqual([]);
      expect(requests).toBeGreaterThan(0);
    },
    REQUESTS.ms + 30_000,
  );
});

describe('JSON-lines fuzz, a real host', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sb-jsonl-fuzz-'));
    await mkdir(join(root, 'project'));
    await mkdir(join(root, 'home'));
  });
  afterAll(async () => {
    killJsonlHosts();
    await rm(root, { recursive: true, force: true });
  });

  it('answers every line, stays alive, and answers a final mcp_list', async () => {
    const { seed } = HOST;
    // Lines through a real process cost far more than parses: a long run sends at most 5,000.
    const runs = Math.min(HOST.runs, 5000);
    const r = new Random(seed + 2);
    const host = startJsonlHost(join(root, 'project'), join(root, 'data'), join(root, 'home'));
    await host.next('the first server list', (m) => m.type === 'mcp_servers');
    let lines = 0;
    for (let i = 0; i < runs; i++) {
      const req = request(r);
      // What the fuzz registers runs nothing of its own and reaches nothing: a command is node
      // running an empty script (it starts, logs and exits: the server fails, as it should),
      // a URL an address nobody listens on.
      const server = req.server;
      if (typeof server === 'object' && server !== null && !Array.isArray(server)) {
        const s = server as Record<string, unknown>;
        if ('command' in s) Object.assign(s, { command: process.execPath, args: ['-e', ''], cwd: root });
        delete s.env;
        if ('url' in s) s.url = 'http://127.0.0.1:9/mcp';
        if ('cwd' in s) s.cwd = root;
      }
      const whole = JSON.stringify(req);
      const other = r.chance(0.15) ? line(r) : undefined;
      // An unsanitized line that names a command or a URL is not sent; a list request instead.
      const sent = other === undefined ? whole : /"(command|url)"/.test(other) ? '{"op":"mcp_list"}' : other;
      // Sent whole, or in pieces across writes (a partial line waits for the rest).
      if (r.chance(0.3)) {
        const cut = r.int(sent.length);
        host.write(sent.slice(0, cut));
        host.write(`${sent.slice(cut)}\n`);
      } else host.write(`${sent}\n`);
      if (sent.trim() !== '') lines++;
    }
    // A line over the 4 MiB cap, bytes that are not UTF-8, a line of only whitespace.
    host.write(`{"op":"call","tool":"${'x'.repeat(4 * 1024 * 1024 + 10)}"}\n`);
    host.child.stdin!.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a]));
    host.write(' \t \n');
    host.send({ op: 'mcp_list', id: 'final' });
    const final = await host.next('the final list', answerTo('final'), { timeoutMs: 60_000 });
    expect(final.type).toBe('mcp_servers');
    expect(host.child.exitCode).toBeNull();
    // At least one message per line: an error for a bad one, the answer (and a server list) for an op.
    expect(host.messages.length).toBeGreaterThanOrEqual(lines);
    expect(host.messages.filter((m) => m.type === 'NOT_JSON')).toEqual([]);
    expect(
      host.messages.some((m) => (m.error as { code?: string } | undefined)?.code === 'LINE_TOO_LONG'),
    ).toBe(true);
    expect(host.stderr.filter((l) => /^\s+at /.test(l))).toEqual([]);
    const codes = host.messages.map((m) => (m.error as { code?: string } | undefined)?.code).filter(Boolean);
    const servers = (final.servers as { name: string }[]).length;
    console.log(
      `jsonl host fuzz: ${lines} lines, ${host.messages.length} messages, ${servers} servers registered, errors ${JSON.stringify(count(codes))}`,
    );
    expect(await host.close()).toBe(0);
  }, 300_000);
});

function count(items: readonly unknown[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[String(item)] = (out[String(item)] ?? 0) + 1;
  return out;
}
