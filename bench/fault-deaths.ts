import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Connection } from '../src/client/connection.js';
import { MemoryEraVerdictStore } from '../src/client/era.js';
import { isSwitchboardError } from '../src/core/errors.js';
import { normalizeServerEntry, type RawServerEntry } from '../src/core/server-config.js';
import { Host } from '../src/host/host.js';
import { type MisbehavingHttpHandle, startMisbehavingHttp } from '../test/fixtures/misbehaving-http.js';
import { startMisbehavingSse } from '../test/fixtures/misbehaving-sse.js';
import { misbehavingBin } from '../test/fixtures/paths.js';

/**
 * A server that dies with calls pending: ms from the witnessed death (taken just before our
 * SIGKILL, or when the HTTP server's sockets were destroyed) to the failure of the first and
 * of the last of the pending calls, through a bare `Connection` and through a `Host`. Each
 * target has a baseline measured in the same trials: the same death seen by Node alone (a
 * child's `exit` event, `fetch` failing), which is what no client can beat.
 */

/** The ways a server runs and dies. */
export const DEATH_TARGETS = [
  'stdio',
  'sh -c',
  'pipe-holder',
  'http json',
  'http sse',
  'legacy sse',
] as const;
export type DeathTarget = (typeof DEATH_TARGETS)[number];

export interface DeathOptions {
  readonly trials: number;
  /** Calls pending when the server dies. */
  readonly calls: number;
  /** Each call's own timeout: a call that waits for it shows as a figure this large. */
  readonly timeoutMs: number;
  /** `name=value` put in every stdio server's environment, so the run finds what it started. */
  readonly marker: { readonly name: string; readonly value: string };
}

/** One trial: ms from the death to the first and the last failure, and how the calls ended. */
export interface DeathSample {
  readonly firstMs: number;
  readonly lastMs: number;
  /** Error codes (or `answered`, `other`) of the calls, counted. */
  readonly outcomes: Record<string, number>;
}

export interface DeathFigures {
  readonly connection: DeathSample[];
  readonly host: DeathSample[];
  /** The same death seen by Node alone: ms to the last of `calls` failures (stdio: one `exit`). */
  readonly baseline: number[];
}

/** Calls a tool of the server under test, through a Connection or a Host. */
type Call = (tool: string, args: Record<string, unknown>, timeoutMs?: number) => Promise<{ text: string }>;

/** A server under test, started for one trial. */
interface Victim {
  /** The entry to connect to, but its name. */
  readonly entry: Omit<RawServerEntry, 'name'>;
  /** Resolves once `count` calls of `hang` reached the server. */
  reached(count: number, call: Call): Promise<void>;
  /** Readies the death (asks what it needs before the calls); the function kills and returns the moment. */
  arm(call: Call): Promise<() => number>;
  close(): Promise<void>;
}

const STDIO_COMMANDS: Record<'stdio' | 'sh -c' | 'pipe-holder', (bin: string) => [string, string[]]> = {
  stdio: (bin) => [process.execPath, [bin, '--mode', 'hang']],
  // The shell holds the pipes and waits for the server. A non-interactive shell points a
  // background job's stdin at /dev/null, and dash does so after a `<&0`, so stdin goes by fd 3.
  'sh -c': (bin) => ['sh', ['-c', `exec 3<&0; "${process.execPath}" "${bin}" --mode hang <&3 3<&- & wait`]],
  // A helper the server started holds its stdout and stderr and outlives it.
  'pipe-holder': (bin) => [process.execPath, [bin, '--mode', 'pipe-holder']],
};

async function stdioVictim(target: keyof typeof STDIO_COMMANDS, options: DeathOptions): Promise<Victim> {
  const [command, args] = STDIO_COMMANDS[target](misbehavingBin);
  return {
    entry: { command, args, protocol: 'legacy', env: { [options.marker.name]: options.marker.value } },
    // One pipe, read in order: once a later call is answered, the hangs before it were read.
    reached: async (_count, call) => {
      await call('echo', { text: 'after the hangs' });
    },
    arm: async (call) => {
      // The server's own pid (under `sh -c`, the shell's child, not the shell).
      const { pid } = JSON.parse((await call('pid', {})).text) as { pid: number };
      return () => {
        const at = performance.now();
        process.kill(pid, 'SIGKILL');
        return at;
      };
    },
    close: async () => {},
  };
}

async function httpVictim(target: 'http json' | 'http sse', trial: number): Promise<Victim> {
  const server: MisbehavingHttpHandle = await startMisbehavingHttp({
    mode: target === 'http json' ? 'json' : 'sse',
  });
  return {
    // Both eras by turns: 2026-07-28 and 2025 requests take different paths in the SDK.
    entry: { url: server.url, protocol: trial % 2 === 0 ? 'legacy' : 'modern' },
    // Connecting calls no tool, so the server's count of tools/call is the trial's hangs.
    reached: (count) =>
      until(
        () => (server.requests['tools/call'] ?? 0) >= count,
        10_000,
        `${count} calls to reach the HTTP server`,
      ),
    // A dead process's sockets close with a FIN, or an RST where data was unread: both, by turns.
    arm: async () => () => server.kill(Math.floor(trial / 2) % 2 === 0 ? 'reset' : 'end'),
    close: () => server.close(),
  };
}

/** A legacy HTTP+SSE (2024-11-05) server: every answer rides its one event stream. */
async function legacySseVictim(): Promise<Victim> {
  const server = await startMisbehavingSse();
  return {
    entry: { url: server.url, transport: 'sse' },
    reached: (count) =>
      until(
        () => (server.requests['tools/call'] ?? 0) >= count,
        10_000,
        `${count} calls to reach the SSE server`,
      ),
    arm: async () => () => server.kill(),
    close: () => server.close(),
  };
}

/** Polls `done` every 5 ms until it holds, for at most `ms`. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function victim(target: DeathTarget, trial: number, options: DeathOptions): Promise<Victim> {
  if (target === 'legacy sse') return legacySseVictim();
  return target === 'http json' || target === 'http sse'
    ? httpVictim(target, trial)
    : stdioVictim(target, options);
}

/** `calls` hangs pending, then the death: when each call failed, from the moment of the death. */
async function trialOf(call: Call, target: Victim, options: DeathOptions): Promise<DeathSample> {
  const outcomes: Record<string, number> = {};
  const failures: number[] = [];
  const count = (key: string) => {
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  };
  const kill = await target.arm(call);
  const calls = Array.from({ length: options.calls }, () =>
    call('hang', {}, options.timeoutMs).then(
      () => count('answered'),
      (error: unknown) => {
        failures.push(performance.now());
        count(isSwitchboardError(error) ? error.code : 'other');
      },
    ),
  );
  await target.reached(options.calls, call);
  const diedAt = kill();
  await Promise.all(calls);
  return { firstMs: Math.min(...failures) - diedAt, lastMs: Math.max(...failures) - diedAt, outcomes };
}

async function viaConnection(
  target: DeathTarget,
  trial: number,
  options: DeathOptions,
): Promise<DeathSample> {
  const server = await victim(target, trial, options);
  const conn = new Connection({
    config: normalizeServerEntry({ name: 'victim', ...server.entry }),
    eraStore: new MemoryEraVerdictStore(),
  });
  try {
    await conn.connect();
    return await trialOf(
      (tool, args, timeoutMs) => conn.callTool(tool, args, { timeoutMs }),
      server,
      options,
    );
  } finally {
    await conn.close();
    await server.close();
  }
}

/** One Host for all of a target's trials; each trial registers a server of its own and removes it. */
async function viaHost(
  host: Host,
  target: DeathTarget,
  trial: number,
  options: DeathOptions,
): Promise<DeathSample> {
  const server = await victim(target, trial, options);
  const name = `victim-${trial}`;
  try {
    await host.register({ name, ...server.entry, sandbox: 'off' }, 'api');
    await until(
      () => {
        const status = host.servers().find((s) => s.name === name);
        if (status?.state === 'failed') throw new Error(`${name} failed: ${status.error?.message}`);
        return host.catalog().lookup(`mcp__${name}__hang`) !== undefined;
      },
      30_000,
      `${name} to connect`,
    );
    const call: Call = (tool, args, timeoutMs) => host.callTool(`mcp__${name}__${tool}`, args, { timeoutMs });
    return await trialOf(call, server, options);
  } finally {
    await host.unregister(name);
    await server.close();
  }
}

/** Node alone: a child SIGKILLed (under `sh -c`, the shell's child) to its `exit` event. */
async function childBaseline(target: DeathTarget, options: DeathOptions): Promise<number> {
  const env = { ...process.env, [options.marker.name]: options.marker.value };
  const idle = 'process.stdout.write(process.pid + "\\n"); setInterval(() => {}, 1 << 30)';
  const child =
    target === 'sh -c'
      ? spawn('sh', ['-c', `"${process.execPath}" -e '${idle}' & wait`], { stdio: 'pipe', env })
      : spawn(process.execPath, ['-e', idle], { stdio: 'pipe', env });
  const exited = new Promise<number>((resolve) => child.once('exit', () => resolve(performance.now())));
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout }).once('line', resolve),
  );
  const at = performance.now();
  process.kill(Number(line), 'SIGKILL');
  return (await exited) - at;
}

/** Node alone: `calls` fetches pending on a plain HTTP server whose sockets are destroyed, to the last failure. */
async function fetchBaseline(target: DeathTarget, calls: number, trial: number): Promise<number> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    if (target === 'http sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    }
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  let arrived = 0;
  server.on('request', () => arrived++);
  const failures: number[] = [];
  const pending = Array.from({ length: calls }, async () => {
    try {
      const response = await fetch(url, { method: 'POST', body: '{}' });
      const reader = response.body!.getReader();
      for (;;) if ((await reader.read()).done) break;
    } catch {
      // the failure is the point
    }
    failures.push(performance.now());
  });
  await until(() => arrived >= calls, 10_000, 'the baseline fetches to arrive');
  const at = performance.now();
  server.close();
  for (const socket of sockets) {
    if (Math.floor(trial / 2) % 2 === 0) socket.resetAndDestroy();
    else socket.destroy();
  }
  await Promise.all(pending);
  return Math.max(...failures) - at;
}

/** Every trial of one target: through a Connection, through a Host, and the baseline, by turns. */
export async function measureDeaths(target: DeathTarget, options: DeathOptions): Promise<DeathFigures> {
  const figures: DeathFigures = { connection: [], host: [], baseline: [] };
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-bench-faults-'));
  const host = await Host.create({
    dataDir,
    // The victims run unsandboxed, as a config-file server would: the figures are the fault
    // handling's, and a machine without bubblewrap measures them too.
    governance: {
      mode: 'full-auto',
      network: { allowPrivate: true },
      sandbox: { registrations: 'optional' },
    },
  });
  try {
    for (let trial = 0; trial < options.trials; trial++) {
      figures.connection.push(await viaConnection(target, trial, options));
      figures.host.push(await viaHost(host, target, trial, options));
      figures.baseline.push(
        target === 'legacy sse'
          ? // One event stream carries every answer: its break is what Node alone sees.
            await fetchBaseline('http sse', 1, trial)
          : target.startsWith('http')
            ? await fetchBaseline(target, options.calls, trial)
            : await childBaseline(target, options),
      );
    }
  } finally {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return figures;
}
