import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  normalizeServerEntry,
  type RawServerEntry,
  type ServerConfig,
} from '../../src/core/server-config.js';

/** Test helpers to start published npm MCP servers as real processes on 127.0.0.1. */
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const everythingBin = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
export const filesystemBin = join(
  dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
);
/** Published MCP Apps servers (stdio with `--stdio`): each ships its view in its package. */
export const pdfAppServerBin = join(dirname(require.resolve('@modelcontextprotocol/server-pdf')), 'index.js');
export const basicAppServerBin = join(
  dirname(require.resolve('@modelcontextprotocol/server-basic-vanillajs')),
  'index.js',
);
const preload = join(here, 'loopback-preload.cjs');

export function stdioEntry(name: string, args: string[], extra: Partial<RawServerEntry> = {}): ServerConfig {
  return normalizeServerEntry({ name, command: process.execPath, args, ...extra });
}

export interface RunningHttpServer {
  readonly url: string;
  readonly child: ChildProcess;
  close(): Promise<void>;
}

/** Starts a node script that listens on PORT (bound to loopback by the preload) and waits for its port. */
export function startNodeHttpServer(
  script: string,
  args: string[],
  path: string,
  timeoutMs = 20_000,
): Promise<RunningHttpServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, script, ...args], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    const timer = setTimeout(
      () => fail(new Error(`server did not report a port within ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    const close = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        return; // the group is already gone
      }
      // Wait until the group is gone. Polled rather than awaiting 'exit': under the test
      // runner's worker the exit event has been seen to go missing for killed children.
      for (let i = 0; i < 200; i++) {
        try {
          process.kill(-child.pid!, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`process group ${child.pid} survived SIGKILL`);
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      void close();
      reject(error);
    };
    child.once('exit', (code) => fail(new Error(`server exited with ${code}: ${stderr}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /SWITCHBOARD_TEST_PORT=(\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ url: `http://127.0.0.1:${match[1]}${path}`, child, close });
      }
    });
  });
}

/** Process ids in a process group (Linux: from `ps`), for orphan checks. */
export async function processesInGroup(pgid: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-eo', 'pid=,pgid=,stat='], (error, stdout) => {
      if (error) return resolve([]);
      const pids = stdout
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((cols) => cols[1] === String(pgid) && !cols[2]?.startsWith('Z'))
        .map((cols) => Number(cols[0]));
      resolve(pids);
    });
  });
}
