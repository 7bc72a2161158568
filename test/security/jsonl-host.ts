import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * `switchboard host --jsonl` as a real child process, for the tests that feed it hostile
 * input: lines in, messages out, and its end (exit code or signal) as an event to wait for.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');

export type Message = Record<string, unknown> & { type: string };

export interface JsonlHost {
  readonly child: ChildProcess;
  readonly messages: Message[];
  readonly stderr: string[];
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Writes raw text to stdin (add the newline yourself). */
  write(text: string): void;
  send(line: object): void;
  /** The first message from `from` on that passes `match`; fails after `timeoutMs` or at exit. */
  next(
    what: string,
    match: (m: Message) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<Message>;
  /** Ends stdin and waits for the exit; kills it if it does not end within `timeoutMs`. */
  close(timeoutMs?: number): Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** Starts the host on the project dir `project` (its switchboard.json) with data in `data`. */
export function startJsonlHost(project: string, data: string, home: string): JsonlHost {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', project, '--data-dir', data, 'host', '--jsonl'],
    { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: home, NO_COLOR: '1' } },
  );
  running.add(child);
  const messages: Message[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    // A line that is not JSON breaks the protocol: kept, marked, for the test to see.
    try {
      messages.push(JSON.parse(line) as Message);
    } catch {
      messages.push({ type: 'NOT_JSON', line });
    }
    wake();
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  // Writes after the process ended fail with EPIPE: the test sees that through `exited`.
  child.stdin!.on('error', () => undefined);
  let ended = false;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      running.delete(child);
      wake();
      resolve(code ?? signal ?? -1);
    }),
  );
  return {
    child,
    messages,
    stderr,
    exited,
    write: (text) => {
      if (!ended) child.stdin!.write(text);
    },
    send(line) {
      this.write(`${JSON.stringify(line)}\n`);
    },
    next: (what, match, options = {}) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`never got ${what}; stderr:\n${stderr.slice(-20).join('\n')}`)),
          options.timeoutMs ?? 20_000,
        );
        const finish = (error?: Error, message?: Message) => {
          clearTimeout(timer);
          waiters.delete(look);
          if (error) reject(error);
          else resolve(message!);
        };
        const look = () => {
          const found = messages.slice(options.from ?? 0).find(match);
          if (found) finish(undefined, found);
          else if (ended)
            finish(new Error(`the host exited before ${what}; stderr:\n${stderr.slice(-20).join('\n')}`));
        };
        waiters.add(look);
        look();
      }),
    async close(timeoutMs = 15_000) {
      if (!ended) child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Kills every host a test left running. */
export function killJsonlHosts(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Matches the answer to request `id`. */
export const answerTo =
  (id: unknown) =>
  (m: Message): boolean =>
    m.id === id;
