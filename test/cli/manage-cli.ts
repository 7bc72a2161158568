import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { eventually } from '../helpers/wait.js';

/**
 * The `switchboard` command as a person runs it, for the setup verbs' tests: a real child
 * process (`node --import tsx src/cli/main.ts`), with its own project dir, data dir and HOME.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');

export interface CliPlace {
  /** `--config`: where switchboard.json is. */
  readonly project: string;
  /** `--data-dir`. */
  readonly data: string;
  /** HOME: where the user config (`.switchboard/config.json`) and other clients' configs are. */
  readonly home: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface CliResult {
  readonly code: number;
  readonly out: string[];
  readonly err: string[];
}

/** A running CLI: its output so far, and its end (all output read). */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly out: string[];
  readonly err: string[];
  readonly done: Promise<CliResult>;
  /** Waits until stdout has a line that passes `test` (bounded: 15 s unless `timeoutMs`). */
  waitForLine(test: (line: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
}

const running = new Set<ChildProcess>();

export function startCli(place: CliPlace, ...args: string[]): CliProcess {
  return startCliWith(place, ['--config', place.project, '--data-dir', place.data, ...args]);
}

/** Like `startCli`, with the arguments exactly as given (no --config or --data-dir added). */
export function startCliWith(place: CliPlace, args: readonly string[]): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', HOME: place.home, ...place.env },
  });
  running.add(child);
  const out: string[] = [];
  const err: string[] = [];
  const outDone = new Promise<void>((resolve) =>
    createInterface({ input: child.stdout! })
      .on('line', (l) => out.push(l))
      .on('close', resolve),
  );
  const errDone = new Promise<void>((resolve) =>
    createInterface({ input: child.stderr! })
      .on('line', (l) => err.push(l))
      .on('close', resolve),
  );
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  const done = Promise.all([exited, outDone, errDone]).then(([code]) => {
    running.delete(child);
    return { code, out, err };
  });
  return {
    child,
    out,
    err,
    done,
    waitForLine: async (test, what, timeoutMs = 15_000) => {
      const found = await eventually(
        () => out.find(test),
        (line) => line !== undefined || child.exitCode !== null,
        { what: `${what} (stderr: ${err.join(' | ')})`, timeoutMs },
      );
      if (found === undefined) throw new Error(`the CLI ended before ${what}: ${err.join('\n')}`);
      return found;
    },
  };
}

/** Runs the CLI to its end. */
export function runCli(place: CliPlace, ...args: string[]): Promise<CliResult> {
  return startCli(place, ...args).done;
}

/** Kills what a test left running. */
export function killAll(): void {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
}

/**
 * Fresh places under one temp root per test file: `newPlace()` gives a project dir, data dir
 * and HOME of their own, with the paths of the project and user config files.
 */
export function placesUnder(
  root: () => string,
): () => Promise<CliPlace & { file: string; userFile: string }> {
  let places = 0;
  return async () => {
    const base = join(root(), `p${places++}`);
    const place = { project: join(base, 'project'), data: join(base, 'data'), home: join(base, 'home') };
    await mkdir(place.project, { recursive: true });
    await mkdir(place.home, { recursive: true });
    return {
      ...place,
      file: join(place.project, 'switchboard.json'),
      userFile: join(place.home, '.switchboard', 'config.json'),
    };
  };
}

/** Writes `value` (JSON, or text as is) to `file`, creating its directory. */
export async function put(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}
