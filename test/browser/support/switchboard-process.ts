import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { descendants, isAlive } from '../../cli/process-tree.js';

/**
 * `switchboard start` (or `serve`) as a person runs it, for the dashboard's browser tests: a
 * child process in its own process group, with its servers behind it and its store in a temp
 * folder; the URLs come from its `--json` line. `stop()` is Ctrl-C (SIGINT), then the wait for it to
 * exit; whatever lingers past the grace time is killed, so nothing outlives a test file.
 */
export interface RunningSwitchboard {
  readonly mcpUrl: string;
  /** The dashboard, e.g. `http://127.0.0.1:40123/ui/`. */
  readonly dashboardUrl: string;
  /** The gateway's origin, e.g. `http://127.0.0.1:40123`. */
  readonly origin: string;
  /**
   * The link that signs a browser in (the dashboard with `?token=` of the local token), when
   * the gateway runs without configured authentication.
   */
  readonly loginUrl?: string;
  /** What it printed on stderr so far (for failure messages). */
  readonly stderr: readonly string[];
  stop(): Promise<void>;
}

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../../src/cli/main.ts');
const STARTUP_MS = 60_000;
const STOP_GRACE_MS = 15_000;

interface StartLine {
  readonly mcp?: string;
  readonly listening?: string;
  readonly dashboard?: string | null;
  /** Where the local token is, when the dashboard takes it. */
  readonly tokenFile?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

/** `switchboard start --port 0`: the demo servers of examples/demo/switchboard.json. */
export function startSwitchboard(): Promise<RunningSwitchboard> {
  return runSwitchboard((dir) => ['--data-dir', join(dir, 'data'), 'start', '--port', '0']);
}

/**
 * `switchboard serve --port 0` with `config` as the `switchboard.json` of a fresh project
 * folder, for servers and gateway settings the demo does not have (fixtures, bearer tokens).
 */
export function serveSwitchboard(config: Readonly<Record<string, unknown>>): Promise<RunningSwitchboard> {
  return runSwitchboard(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'switchboard.json'), JSON.stringify(config, null, 2));
    return ['--config', project, '--data-dir', join(dir, 'data'), 'serve', '--port', '0'];
  });
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A stdio server entry that runs `script` (a path from the repository's root) under tsx. */
export function tsxServer(
  script: string,
  extra: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', 'tsx', join(ROOT, script)], cwd: ROOT, ...extra };
}

async function runSwitchboard(
  argsFor: (dir: string) => readonly string[] | Promise<readonly string[]>,
): Promise<RunningSwitchboard> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-browser-'));
  await mkdir(join(dir, 'home'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'home'), NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--json', ...(await argsFor(dir))], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    detached: true,
  });
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let line: StartLine;
  try {
    line = await firstLine(child, exited, stderr);
  } catch (error) {
    await stopChild(child, exited);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const mcpUrl = (line.mcp ?? line.listening)!;
  const origin = new URL(mcpUrl).origin;
  // Both verbs print the dashboard's URL; a line without one still has the gateway serving it at /ui/.
  const dashboardUrl = line.dashboard ?? `${origin}/ui/`;
  const token = line.tokenFile === undefined ? undefined : (await readFile(line.tokenFile, 'utf8')).trim();
  return {
    mcpUrl,
    dashboardUrl,
    origin,
    ...(token !== undefined && { loginUrl: `${dashboardUrl}?token=${token}` }),
    stderr,
    stop: async () => {
      await stopChild(child, exited);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The JSON line `start --json` and `serve --json` print once the gateway listens. */
function firstLine(
  child: ChildProcess,
  exited: Promise<void>,
  stderr: readonly string[],
): Promise<StartLine> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(
      () =>
        reject(
          new Error(`switchboard start printed nothing in ${STARTUP_MS} ms. stderr:\n${stderr.join('\n')}`),
        ),
      STARTUP_MS,
    );
    lines.once('line', (text) => {
      clearTimeout(timer);
      let parsed: StartLine;
      try {
        parsed = JSON.parse(text) as StartLine;
      } catch {
        reject(new Error(`switchboard start printed ${JSON.stringify(text)}, not its JSON line.`));
        return;
      }
      if (parsed.error || typeof (parsed.mcp ?? parsed.listening) !== 'string')
        reject(new Error(`switchboard start failed: ${parsed.error?.message ?? text}`));
      else resolve(parsed);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(
        new Error(
          `switchboard start exited (${child.exitCode}) before listening. stderr:\n${stderr.join('\n')}`,
        ),
      );
    });
  });
}

/** SIGINT, as Ctrl-C; after the grace time, SIGKILL to the group and to every server it had started. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // Upstream servers run in process groups of their own: note them before they are orphaned.
  const started = descendants(pid);
  child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STOP_GRACE_MS);
  });
  const clean = await Promise.race([exited.then(() => true), graceOver]);
  clearTimeout(timer);
  if (!clean) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
    await exited;
  }
  for (const server of started) {
    if (isAlive(server)) process.kill(server, 'SIGKILL');
  }
  if (!clean) throw new Error(`switchboard start did not exit within ${STOP_GRACE_MS} ms of SIGINT; killed.`);
}
