import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LogFiles } from '../../src/host/logs/log-files.js';
import { openStore } from '../../src/storage/open-store.js';
import type { Store } from '../../src/storage/ports.js';
import { type CliPlace, killAll, runCli, startCli } from './manage-cli.js';

/**
 * `switchboard logs` and `switchboard events` as child processes, reading what the host's own
 * writers wrote: log files through `LogFiles` (rotation included), events through the store.
 */
let root: string;
let place: CliPlace;
let store: Store;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sb-cli-logs-'));
  place = { project: join(root, 'project'), data: join(root, 'data'), home: root };
  await mkdir(place.project);
  await writeFile(
    join(place.project, 'switchboard.json'),
    JSON.stringify({ servers: { kitchen: { command: 'kitchen' }, quiet: { command: 'quiet' } } }),
  );
  await mkdir(place.data);
  store = await openStore(join(place.data, 'switchboard.db'));
});
afterEach(() => killAll());
afterAll(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, s));

describe('switchboard logs', () => {
  it('prints the last lines, as text or JSON, and says when there is no log yet', async () => {
    const logs = new LogFiles({ dir: join(place.data, 'logs') });
    logs.write('kitchen', { at: at(1), source: 'lifecycle', level: 'info', text: 'started process 42' });
    logs.write('kitchen', { at: at(2), source: 'stderr', level: 'info', text: 'listening' });
    logs.write('kitchen', { at: at(3), source: 'server', level: 'error', text: 'disk \u001b[31mfull' });
    const [two, json, none, unknown] = await Promise.all([
      runCli(place, 'logs', 'kitchen', '-n', '2'),
      runCli(place, '--json', 'logs', 'kitchen'),
      runCli(place, 'logs', 'quiet'),
      runCli(place, 'logs', 'nope'),
    ]);
    expect(two.code).toBe(0);
    // Control characters from a server are shown, not sent to the terminal.
    expect(two.out).toEqual([
      '2026-01-02T03:04:02.000Z [stderr] listening',
      '2026-01-02T03:04:03.000Z [error] disk \\u001b[31mfull',
    ]);
    expect(json.out.map((l) => JSON.parse(l))).toEqual([
      { server: 'kitchen', at: at(1).toISOString(), tag: 'lifecycle', text: 'started process 42' },
      { server: 'kitchen', at: at(2).toISOString(), tag: 'stderr', text: 'listening' },
      { server: 'kitchen', at: at(3).toISOString(), tag: 'error', text: 'disk \u001b[31mfull' },
    ]);
    expect(none.code).toBe(0);
    expect(none.out).toEqual([]);
    expect(none.err[0]).toBe(
      `No log for "quiet" yet (${join(place.data, 'logs', 'quiet.log')}); it is written while the server runs.`,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.err[0]).toContain('No server named "nope"');
  });

  it('follows appended lines across a rotation until Ctrl-C', async () => {
    const logs = new LogFiles({ dir: join(place.data, 'logs'), maxBytes: 300 });
    logs.write('follow', { at: at(0), source: 'stderr', level: 'info', text: 'before' });
    const run = startCli(place, '--json', 'logs', 'follow', '-f', '-n', '1');
    await run.waitForLine((l) => JSON.parse(l).text === 'before', 'the last line');
    // Two lines at a time, each pair waited for: the file rotates every third line, so some
    // pairs rotate it before the follower looks, and it must read the old file's end first.
    for (let i = 1; i <= 8; i += 2) {
      for (const n of [i, i + 1])
        logs.write('follow', {
          at: at(n),
          source: 'stderr',
          level: 'info',
          text: `line ${n} ${'x'.repeat(40)}`,
        });
      await run.waitForLine((l) => JSON.parse(l).text.startsWith(`line ${i + 1} `), `line ${i + 1}`);
    }
    expect((await readFile(join(place.data, 'logs', 'follow.log.1'), 'utf8')).length).toBeGreaterThan(0);
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(result.err).toEqual([]);
    expect(result.out.map((l) => JSON.parse(l).text.split(' ').slice(0, 2).join(' '))).toEqual([
      'before',
      ...Array.from({ length: 8 }, (_, i) => `line ${i + 1}`),
    ]);
  });
});

describe('switchboard events', () => {
  it('takes pending events, acknowledges them unless --peek, and follows new ones', async () => {
    for (const n of [1, 2, 3])
      await store.events.append({
        server: 'kitchen',
        method: 'event/new_email',
        params: { n },
        receivedAt: at(n),
      });
    const peek = await runCli(place, '--json', 'events', '--peek');
    expect(peek.code).toBe(0);
    const peeked = peek.out.map((l) => JSON.parse(l));
    expect(peeked).toEqual(
      [1, 2, 3].map((n) => ({
        id: expect.any(Number),
        server: 'kitchen',
        method: 'event/new_email',
        params: { n },
        receivedAt: at(n).toISOString(),
      })),
    );
    expect(await store.events.count('pending')).toBe(3);

    const human = await runCli(place, 'events', '--limit', '2');
    expect(human.out).toEqual([
      `${at(1).toISOString()}  #${peeked[0].id}  kitchen  event/new_email {"n":1}`,
      `${at(2).toISOString()}  #${peeked[1].id}  kitchen  event/new_email {"n":2}`,
    ]);
    expect(await store.events.count('acked')).toBe(2);

    const follow = startCli(place, '--json', 'events', '--follow');
    await follow.waitForLine((l) => JSON.parse(l).params.n === 3, 'the pending event');
    await store.events.append({ server: 'kitchen', method: 'event/late', receivedAt: at(9) });
    await follow.waitForLine((l) => JSON.parse(l).method === 'event/late', 'the new event');
    follow.child.kill('SIGINT');
    expect((await follow.done).code).toBe(0);
    expect(await store.events.count('pending')).toBe(0);
    expect(await store.events.count('acked')).toBe(4);

    const [empty, usage, elsewhere] = await Promise.all([
      runCli(place, 'events'),
      runCli(place, 'events', '--limit', '0'),
      runCli({ ...place, data: join(root, 'empty-data') }, 'events'),
    ]);
    expect(empty.code).toBe(0);
    expect(empty.err).toEqual(['No pending events.']);
    expect(usage.code).toBe(2);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.err[0]).toContain('No events: nothing has been stored');
    // Three CLI processes in turn, each loading the host: slow when the whole suite runs.
  }, 90_000);
});
