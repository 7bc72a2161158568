import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCassette } from '../../src/client/recording/cassette.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../fixtures/kitchen-sink.js';

/**
 * `switchboard record` of a remote (Streamable HTTP) server whose entry sends a bearer token
 * from the environment: the session is recorded, the token never reaches the cassette even
 * when the server says it back, and the replay answers as the server did. `replay --timing`
 * keeps the recorded pace, end to end: the answer of a call the server took 2.5 s over comes
 * at least that long after it was asked, and at once without the flag.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
const TOKEN = 'tok-http-9f8e7d6c5b4a';
const SLOW_MS = 2500;
let dir: string;
let kitchen: KitchenHttpHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-record-http-'));
  kitchen = await startKitchenSinkHttp({ era: 'legacy' });
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      servers: { remote: { url: kitchen.url, headers: { Authorization: 'Bearer ${KITCHEN_TOKEN}' } } },
    }),
  );
});

afterAll(async () => {
  await kitchen?.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => [
  '--import',
  'tsx',
  main,
  '--config',
  dir,
  '--data-dir',
  join(dir, 'data'),
  ...args,
];

async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client(
    { name: 'record-http-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'legacy' } },
  );
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...(process.env as Record<string, string>), KITCHEN_TOKEN: TOKEN },
      stderr: 'pipe',
    }),
  );
  return client;
}

/** Calls `slow`, noting when the request left and when its answer came (performance.now()). */
async function timedSlowCall(client: Client): Promise<{ sentAt: number; answerAt: number; result: unknown }> {
  const sentAt = performance.now();
  const result = await client.callTool({ name: 'slow', arguments: { ms: SLOW_MS } });
  return { sentAt, answerAt: performance.now(), result };
}

describe('record an HTTP server, replay with and without --timing', () => {
  let recorded: { echo: unknown; slow: unknown };
  const cassette = () => join(dir, 'remote.cassette.jsonl');

  it('records the remote server; its bearer token is redacted even where the server echoes it', async () => {
    const client = await stdioClient(cli('record', 'remote'));
    try {
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'plain' } });
      const leaked = await client.callTool({ name: 'echo', arguments: { text: `my token is ${TOKEN}` } });
      expect(JSON.stringify(leaked)).toContain(TOKEN);
      const slow = await timedSlowCall(client);
      recorded = { echo, slow: slow.result };
    } finally {
      await client.close();
    }
    const text = await readFile(cassette(), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('my token is [redacted]');
    expect(parseCassette(text, cassette()).header.server).toBe('remote');
  }, 90_000);

  it('replays with --timing at the recorded pace, and without it at once', async () => {
    const lines = parseCassette(await readFile(cassette(), 'utf8'), cassette()).lines;
    const slowRequest = lines.find(
      (l) => l.from === 'client' && (l.message as { params?: { name?: string } }).params?.name === 'slow',
    );
    const slowId = (slowRequest?.message as { id?: unknown } | undefined)?.id;
    const answer = lines.find((l) => l.from === 'server' && (l.message as { id?: unknown }).id === slowId);
    expect(slowRequest && answer).toBeTruthy();
    // What the recording says the server took to answer.
    const recordedGap = answer!.at - slowRequest!.at;
    expect(recordedGap).toBeGreaterThanOrEqual(SLOW_MS - 50);

    const paced = await stdioClient(cli('replay', cassette(), '--timing'));
    try {
      expect(await paced.callTool({ name: 'echo', arguments: { text: 'plain' } })).toEqual(recorded.echo);
      const call = await timedSlowCall(paced);
      expect(call.result).toEqual(recorded.slow);
      // The replay waits the recorded time after the request reached it, which is after it
      // left here; timers never fire early by more than a millisecond.
      expect(call.answerAt - call.sentAt).toBeGreaterThanOrEqual(recordedGap - 2);
    } finally {
      await paced.close();
    }

    const quick = await stdioClient(cli('replay', cassette()));
    try {
      const call = await timedSlowCall(quick);
      expect(call.result).toEqual(recorded.slow);
      // Answered at once: far from the recorded 2.5 s even on a loaded machine.
      expect(call.answerAt - call.sentAt).toBeLessThan(recordedGap);
    } finally {
      await quick.close();
    }
  }, 120_000);
});
