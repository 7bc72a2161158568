import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import type { FastSessionCall } from '../../../src/gateway/mcp/fast-session-call.js';
import type { FastToolCall } from '../../../src/gateway/mcp/fast-tool-call.js';
import { createGatewayServer } from '../../../src/gateway/mcp/gateway-server.js';
import { IdempotencyCache } from '../../../src/gateway/mcp/idempotency.js';
import { McpEndpoint } from '../../../src/gateway/mcp/mcp-endpoint.js';
import { relayStateCodec, relayStateKey } from '../../../src/gateway/mcp/relay-state.js';
import { Host } from '../../../src/host/host.js';
import { type KitchenHttpHandle, startKitchenSinkHttp } from '../../fixtures/kitchen-sink.js';
import { catalogHas } from '../../helpers/wait.js';

/** The limits the fast-path tests serve with (small enough to refuse a long argument). */
export const TEST_LIMITS = { argumentBytes: 10_000, depth: 8, stringLength: 1_000 };

/**
 * The gateway's MCP endpoint over `host` as `startHttpGateway` builds it (names passed through,
 * the given tool globs exposed, every resource and prompt), with the fast paths given — the
 * fast-path tests build one with them and one without, and compare.
 */
export function endpointUnderTest(
  host: Host,
  options: {
    readonly exposed: readonly string[];
    readonly consent?: 'on' | 'off';
    readonly retryMs?: number;
    readonly fastToolCall?: FastToolCall;
    readonly fastSessionCall?: FastSessionCall;
  },
): McpEndpoint {
  const idempotency = new IdempotencyCache<never>(60_000);
  const relayState = relayStateCodec(relayStateKey());
  return new McpEndpoint({
    build: (principal) =>
      createGatewayServer({
        host,
        principal,
        naming: 'passthrough-unique',
        expose: { tools: options.exposed, resources: ['*'], prompts: ['*'] },
        consent: options.consent ?? 'off',
        limits: TEST_LIMITS,
        idempotency,
        relayState,
      }),
    sessions: { idleTtlMs: 60_000, max: 50 },
    ...(options.retryMs !== undefined && { retryMs: options.retryMs }),
    ...(options.fastToolCall && { fastToolCall: options.fastToolCall }),
    ...(options.fastSessionCall && { fastSessionCall: options.fastSessionCall }),
  });
}

/** A host over the kitchen sink served on 2026-07-28 HTTP, as the fast-path tests compare on. */
export interface KitchenHost {
  readonly host: Host;
  readonly kitchen: KitchenHttpHandle;
  close(): Promise<void>;
}

/** Starts the kitchen sink and a host over it (data in a temp dir), once its tools are listed. */
export async function kitchenHost(): Promise<KitchenHost> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-fast-path-'));
  const kitchen = await startKitchenSinkHttp({ era: 'modern' });
  const host = await Host.create({
    dataDir,
    governance: { mode: 'full-auto' },
    servers: [normalizeServerEntry({ name: 'kitchen', url: kitchen.url, protocol: 'modern' })],
  });
  await catalogHas(host, 'mcp__kitchen__echo');
  return {
    host,
    kitchen,
    close: async () => {
      await host.close();
      await kitchen.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
