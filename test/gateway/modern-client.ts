import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { type HttpGateway, startHttpGateway } from '../../src/gateway/http-gateway.js';
import { Host } from '../../src/host/host.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * A raw 2026-07-28 client for gateway tests: pinned to 2026-07-28, it hands `input_required`
 * answers back instead of fulfilling them, and reads any result unchecked, so a test sees the
 * wire as the gateway wrote it.
 */

export type Raw = Record<string, unknown>;

/** Accepts any result unchanged. */
export const passthrough = {
  '~standard': { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }) },
};

/** A gateway logger that says nothing (tests look at answers, not access lines). */
export const quietLog = { access: () => undefined, warn: () => undefined, error: () => undefined };

/** Connects a 2026-07-28 client declaring `capabilities` to `url`; the caller closes it. */
export async function modernClient(
  url: string,
  capabilities: Record<string, unknown>,
  name = 'gateway-test',
): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      capabilities,
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** `tools/call` of `name` with `extra` params merged in; an `input_required` answer comes back as is. */
export function callRaw(client: Client, name: string, extra: Raw = {}): Promise<Raw> {
  return client.request(
    { method: 'tools/call', params: { name, arguments: {}, ...extra } } as never,
    passthrough,
    { allowInputRequired: true },
  ) as Promise<Raw>;
}

/** The JSON-RPC error `promise` fails with (its code and message), or undefined when it succeeds. */
export async function rpcError(
  promise: Promise<unknown>,
): Promise<{ code?: number; message?: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error as { code?: number; message?: string };
  }
}

/** A real Host in a temp data dir and an HTTP gateway in front of it, for end-to-end tests. */
export interface GatewayUnderTest {
  readonly host: Host;
  readonly gateway: HttpGateway;
  /** A 2026-07-28 client of this gateway; closed with `close()`. */
  connect(capabilities: Record<string, unknown>): Promise<Client>;
  close(): Promise<void>;
}

/**
 * Starts `servers` in a Host (governance `mode`), waits until `ready` is in its catalog, and
 * serves them with names passed through and `consent` as given.
 */
export async function startGatewayUnderTest(options: {
  readonly servers: readonly Record<string, unknown>[];
  readonly ready: string;
  readonly mode: 'full-auto' | 'auto-edit';
  readonly consent: 'on' | 'off';
}): Promise<GatewayUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-gateway-test-'));
  const host = await Host.create({
    dataDir,
    governance: { mode: options.mode },
    servers: options.servers.map((s) => normalizeServerEntry(s)),
  });
  const clients: Client[] = [];
  try {
    await catalogHas(host, options.ready);
    const gateway = await startHttpGateway(
      host,
      resolveGateway({ port: 0, names: 'passthrough-unique', consent: options.consent }),
      { log: quietLog },
    );
    return {
      host,
      gateway,
      async connect(capabilities) {
        const client = await modernClient(gateway.url, capabilities);
        clients.push(client);
        return client;
      },
      async close() {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        await gateway.close();
        await host.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
