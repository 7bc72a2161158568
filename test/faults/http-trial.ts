import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import { Connection } from '../../src/client/connection.js';
import type { LogEntry } from '../../src/client/connection-types.js';
import { MemoryEraVerdictStore } from '../../src/client/era.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import {
  type MisbehavingHttpHandle,
  type MisbehavingHttpOptions,
  startMisbehavingHttp,
} from '../fixtures/misbehaving-http.js';
import {
  type MisbehavingSseHandle,
  type MisbehavingSseOptions,
  startMisbehavingSse,
} from '../fixtures/misbehaving-sse.js';
import { type Fault, judgeWithin, REQUEST_TIMEOUT_S } from './fault-table.js';

/** How an HTTP row starts its server: the misbehaving HTTP fixture's options, and the era. */
export interface HttpStart {
  readonly server: Omit<MisbehavingHttpOptions, 'port'>;
  readonly protocol: 'legacy' | 'modern';
  /** Connect timeout, seconds (default the request timeout). */
  readonly connectS?: number;
  readonly listPageCap?: number;
  /** Point the connection at a port nobody listens on (the server is started and closed first). */
  readonly refused?: boolean;
}

/** What an HTTP judge gets: the server (in this process), and a Connection not yet connected. */
export interface HttpTrial {
  readonly name: string;
  readonly conn: Connection;
  readonly logs: LogEntry[];
  /** The server now (a restart replaces it). */
  server(): MisbehavingHttpHandle;
  /** Kills the server as a crash would and starts a fresh one (no sessions) on the same port. */
  restart(): Promise<MisbehavingHttpHandle>;
}

export type HttpFault = Fault<HttpStart, HttpTrial>;

/** Runs one Streamable HTTP row: starts server and connection, judges, closes both. */
export async function runHttpFault(fault: HttpFault): Promise<void> {
  let server = await startMisbehavingHttp(fault.start.server);
  const url = server.url;
  if (fault.start.refused) await server.close();
  const logs: LogEntry[] = [];
  const conn = new Connection({
    config: normalizeServerEntry({
      name: fault.id,
      url,
      protocol: fault.start.protocol,
      timeouts: { request: REQUEST_TIMEOUT_S, connect: fault.start.connectS ?? REQUEST_TIMEOUT_S },
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => logs.push(entry),
    ...(fault.start.listPageCap !== undefined && { listPageCap: fault.start.listPageCap }),
  });
  const trial: HttpTrial = {
    name: fault.id,
    conn,
    logs,
    server: () => server,
    restart: async () => {
      server.kill('reset');
      await server.close();
      // A real restart takes at least a process start, and the client's sockets see the resets
      // meanwhile. Here the new server listens within the same turn of the event loop, before
      // the client could read them: a timer lets its poll phase run first, as any restart does.
      await new Promise((resolve) => setTimeout(resolve, 10));
      const port = Number(new URL(url).port);
      server = await startMisbehavingHttp({ ...fault.start.server, port });
      return server;
    },
  };
  let closeMs = 0;
  try {
    await judgeWithin(fault.id, fault.judge(trial));
  } finally {
    const closing = performance.now();
    await conn.close();
    closeMs = performance.now() - closing;
    if (!fault.start.refused) await server.close();
  }
  // close() is bounded even against a server that holds its responses open.
  expect(closeMs, 'close() took too long').toBeLessThan(5000);
}

/** How a legacy HTTP+SSE row starts its server. */
export interface SseStart {
  readonly server: Omit<MisbehavingSseOptions, 'port'>;
  readonly connectS?: number;
  readonly listPageCap?: number;
  readonly refused?: boolean;
}

/** What a legacy HTTP+SSE judge gets. */
export interface SseTrial {
  readonly name: string;
  readonly conn: Connection;
  readonly logs: LogEntry[];
  /** The server now (a restart replaces it). */
  server(): MisbehavingSseHandle;
  /** Kills the server as a crash would and starts a fresh one (no sessions) on the same port. */
  restart(): Promise<MisbehavingSseHandle>;
}

export type SseFault = Fault<SseStart, SseTrial>;

/** Runs one legacy HTTP+SSE row. */
export async function runSseFault(fault: SseFault): Promise<void> {
  let server = await startMisbehavingSse(fault.start.server);
  const url = server.url;
  if (fault.start.refused) await server.close();
  const logs: LogEntry[] = [];
  const conn = new Connection({
    config: normalizeServerEntry({
      name: fault.id,
      url,
      transport: 'sse',
      timeouts: { request: REQUEST_TIMEOUT_S, connect: fault.start.connectS ?? REQUEST_TIMEOUT_S },
    }),
    eraStore: new MemoryEraVerdictStore(),
    onLog: (entry) => logs.push(entry),
    ...(fault.start.listPageCap !== undefined && { listPageCap: fault.start.listPageCap }),
  });
  const trial: SseTrial = {
    name: fault.id,
    conn,
    logs,
    server: () => server,
    restart: async () => {
      server.kill();
      await server.close();
      // As in runHttpFault: the client reads the resets before the new server listens.
      await new Promise((resolve) => setTimeout(resolve, 10));
      server = await startMisbehavingSse({ ...fault.start.server, port: Number(new URL(url).port) });
      return server;
    },
  };
  let closeMs = 0;
  try {
    await judgeWithin(fault.id, fault.judge(trial));
  } finally {
    const closing = performance.now();
    await conn.close();
    closeMs = performance.now() - closing;
    if (!fault.start.refused) await server.close();
  }
  expect(closeMs, 'close() took too long').toBeLessThan(5000);
}
