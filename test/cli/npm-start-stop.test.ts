import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSurvivors } from '../helpers/processes.js';
import { eventually } from '../helpers/wait.js';
import { commandLine, descendants, isAlive } from './process-tree.js';

/**
 * `npm start` stopped the way a process manager stops it: SIGTERM to the npm process alone
 * (not to its process group, as Ctrl-C at a terminal would). npm passes the signal to the
 * script's process, which must be the gateway itself (not a shell that dies and leaves it),
 * and the gateway must close its servers: afterwards no process of the tree is left.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
let dir: string;
let tree: number[] = [];
let child: ChildProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-npm-start-'));
});

afterAll(async () => {
  killSurvivors(tree);
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('stops the gateway and every demo server on SIGTERM to npm', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir, NO_COLOR: '1' };
    delete env.FORCE_COLOR;
    const npm = spawn(
      'npm',
      ['start', '--silent', '--', '--port', '0', '--no-open', '--data-dir', join(dir, 'data')],
      { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    child = npm;
    const err: string[] = [];
    createInterface({ input: npm.stderr! }).on('line', (line) => err.push(line));
    npm.stdout!.resume();
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    await eventually(
      () => err.join('\n'),
      (text) => text.includes('All 3 demo servers are connected.') || npm.exitCode !== null,
      { what: 'connected the demo servers', timeoutMs: 90_000, everyMs: 200 },
    );
    expect(npm.exitCode, err.join('\n')).toBeNull();
    tree = descendants(npm.pid!);
    const lines = tree.map(commandLine).join('\n');
    for (const name of ['bin/switchboard.js start', 'demo-weather', 'demo-elicitation', 'server-filesystem'])
      expect(lines).toContain(name);

    process.kill(npm.pid!, 'SIGTERM');
    await exited;
    // The gateway closes its servers before it exits, and npm exits after it: nothing of the
    // tree may outlive npm for long. Bounded by the stop's own limit (15 s) and a margin.
    const left = await eventually(
      () => tree.filter(isAlive),
      (alive) => alive.length === 0,
      { what: 'ended every process of the tree', timeoutMs: 25_000, everyMs: 100 },
    ).catch(() => tree.filter(isAlive));
    expect(left.map(commandLine)).toEqual([]);
    expect(err.join('\n')).toContain('Stopped.');
  }, 150_000);
});
