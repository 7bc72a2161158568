import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followLog, readWhole } from '../../src/cli/log-follow.js';
import { LogFiles } from '../../src/host/logs/log-files.js';
import { eventually } from '../helpers/wait.js';

/** Following a real log file written by the host's LogFiles, rotations included. */
let dir: string;
let stop: AbortController;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-log-follow-'));
  stop = new AbortController();
});
afterEach(async () => {
  stop.abort();
  await rm(dir, { recursive: true, force: true });
});

const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, s));
const text = (line: string) => line.split(' ').slice(2, 4).join(' ');

describe('followLog', () => {
  it('starts where the tail ended and reads on through one rotation without losing a line', async () => {
    const logs = new LogFiles({ dir, maxBytes: 300 });
    const file = join(dir, 's.log');
    logs.write('s', { at: at(0), source: 'stderr', level: 'info', text: 'seen before' });
    await logs.flush();
    const start = await readWhole(file);
    // Written after the tail was read, before following starts: it must still be printed.
    logs.write('s', { at: at(1), source: 'stderr', level: 'info', text: `line 1 ${'x'.repeat(40)}` });
    const printed: string[] = [];
    const warned: string[] = [];
    const done = followLog(file, start?.position, {
      print: (l) => printed.push(l),
      warn: (w) => warned.push(w),
      signal: stop.signal,
    });
    for (let n = 2; n <= 6; n++) {
      logs.write('s', { at: at(n), source: 'stderr', level: 'info', text: `line ${n} ${'x'.repeat(40)}` });
      await eventually(
        () => printed.length,
        (c) => c === n,
        { what: `printed line ${n}` },
      );
    }
    stop.abort();
    await done;
    expect(printed.map(text)).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6']);
    expect(warned).toEqual([]);
  });

  it('says so when the file was rotated twice between two looks, and prints no broken line', async () => {
    const logs = new LogFiles({ dir, maxBytes: 300 });
    const file = join(dir, 's.log');
    logs.write('s', { at: at(0), source: 'stderr', level: 'info', text: 'seen before' });
    await logs.flush();
    const start = await readWhole(file);
    const printed: string[] = [];
    const warned: string[] = [];
    const done = followLog(file, start?.position, {
      print: (l) => printed.push(l),
      warn: (w) => warned.push(w),
      signal: stop.signal,
    });
    // One synchronous burst: the follower cannot look in between.
    for (let n = 1; n <= 8; n++)
      logs.write('s', { at: at(n), source: 'stderr', level: 'info', text: `line ${n} ${'x'.repeat(40)}` });
    await eventually(
      () => printed.at(-1),
      (l) => l !== undefined && text(l) === 'line 8',
      { what: 'line 8' },
    );
    stop.abort();
    await done;
    expect(warned).toEqual([
      'the log was rotated more than once between two looks; some lines were not shown.',
    ]);
    // Lines 1–3 went with the first backup; 4–6 are the backup now, 7–8 the current file.
    expect(printed.map(text)).toEqual(['line 4', 'line 5', 'line 6', 'line 7', 'line 8']);
  });

  it('waits for a file that does not exist yet and reads it from the start', async () => {
    const logs = new LogFiles({ dir });
    const printed: string[] = [];
    const done = followLog(join(dir, 'late.log'), undefined, {
      print: (l) => printed.push(l),
      warn: () => undefined,
      signal: stop.signal,
    });
    logs.write('late', { at: at(1), source: 'lifecycle', level: 'info', text: 'first words' });
    await eventually(
      () => printed.length,
      (c) => c === 1,
      { what: 'the first line' },
    );
    stop.abort();
    await done;
    expect(printed).toEqual(['2026-01-02T03:04:01.000Z [lifecycle] first words']);
  });
});
