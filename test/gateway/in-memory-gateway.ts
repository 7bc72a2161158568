import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createGatewayServer } from '../../src/gateway/mcp/gateway-server.js';
import { IdempotencyCache } from '../../src/gateway/mcp/idempotency.js';
import type { GatewayPrincipal } from '../../src/gateway/mcp/served-catalog.js';
import type { Host } from '../../src/host/host.js';

/**
 * A 2025-era SDK client connected in memory to a gateway server over `host` for `principal`
 * (namespaced names, everything exposed, no consent question): for tests of what one caller
 * is served. `setup` runs before the connect (request handlers, e.g. roots/list).
 */
export async function inMemoryGatewayClient(
  host: Host,
  principal: GatewayPrincipal,
  options: { capabilities?: Record<string, unknown>; setup?: (client: Client) => void } = {},
): Promise<Client> {
  const server = createGatewayServer({
    host,
    principal,
    naming: 'namespaced',
    expose: { tools: ['*'], resources: ['*'], prompts: ['*'] },
    consent: 'off',
    limits: { argumentBytes: 10_000, depth: 8, stringLength: 1_000 },
    idempotency: new IdempotencyCache(60_000),
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client(
    { name: principal.id, version: '1.0.0' },
    { ...(options.capabilities && { capabilities: options.capabilities }) },
  );
  options.setup?.(client);
  await client.connect(b);
  return client;
}
