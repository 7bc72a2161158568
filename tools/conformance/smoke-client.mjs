#!/usr/bin/env node
// Throwaway conformance client used only to prove scripts/conformance-client.mjs works
// before test/conformance/everything-client.ts exists. It uses the raw SDK v2 Client
// (resolved from the root project's node_modules) and handles just `initialize` and
// `tools_call`; every other scenario exits 1 without a marker, so the runner reports it
// as a failure (never as a vacuous pass).
//
//   node scripts/conformance-client.mjs --client tools/conformance/smoke-client.mjs \
//        --scenario initialize
//
// Protocol (see docs/conformance.md): URL = last argv, scenario name =
// MCP_CONFORMANCE_SCENARIO, marker dir = SWITCHBOARD_CONFORMANCE_MARKERS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
// Set by suite 0.2.x only: the wire the scenario's test server speaks (2025-11-25 or
// 2026-07-28). 2026-07-28 is the stateless era (server/discover + per-request _meta).
const wire = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';

function writeMarker() {
  const dir = process.env.SWITCHBOARD_CONFORMANCE_MARKERS;
  if (!dir || !scenario) return;
  const file = join(dir, `${scenario}.done`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ scenario, pid: process.pid, at: new Date().toISOString() })}\n`);
}

async function withClient(fn) {
  const client = new Client(
    { name: 'switchboard-smoke-client', version: '0.0.0' },
    { capabilities: {}, versionNegotiation: { mode: wire >= '2026-07-28' ? { pin: wire } : 'legacy' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  try {
    await fn(client);
  } finally {
    await client.close();
  }
}

const handlers = {
  // Test server records the initialize params (protocolVersion, clientInfo.name/version).
  initialize: () =>
    withClient(async (client) => {
      await client.listTools();
    }),
  // Test server exposes add_numbers(a: number, b: number); the check needs a tools/call
  // with numeric a and b.
  tools_call: () =>
    withClient(async (client) => {
      const { tools } = await client.listTools();
      if (!tools.some((t) => t.name === 'add_numbers')) throw new Error('add_numbers not listed');
      const result = await client.callTool({ name: 'add_numbers', arguments: { a: 5, b: 3 } });
      if (result.isError) throw new Error(`add_numbers failed: ${JSON.stringify(result.content)}`);
    }),
};

const handler = handlers[scenario];
if (!handler) {
  console.error(`smoke-client: scenario not supported: ${scenario}`);
  process.exit(1);
}
try {
  await handler();
  writeMarker();
  process.exit(0);
} catch (err) {
  console.error(`smoke-client: ${scenario} failed:`, err);
  process.exit(1);
}
