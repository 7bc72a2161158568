import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { echoArguments, isEchoAnswer, type SizeKey } from './payloads.js';
import type { CallSession, Era } from './raw-client.js';

/** Where the SDK client connects: a stdio command it spawns, or a Streamable HTTP URL. */
export type SdkEndpoint =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'http'; readonly url: string };

/**
 * The SDK v2 `Client` as a driver: what a real MCP client pays per call, parsing and schema
 * validation included. `legacy` pins the 2025 handshake; `modern` pins 2026-07-28, so every
 * request carries the `_meta` envelope and the `Mcp-Method`/`Mcp-Name` headers. For stdio,
 * `pid` is the spawned server's (the target process of the direct connection).
 */
export async function openSdkSession(options: {
  endpoint: SdkEndpoint;
  era: Era;
  timeoutMs: number;
  /** The result size each call asks for; `small` unless given. */
  size?: SizeKey;
}): Promise<CallSession & { pid?: number }> {
  const size = options.size ?? 'small';
  const echoArgs = echoArguments(size);
  const client = new Client(
    { name: 'gateway-bench-sdk', version: '1.0.0' },
    {
      versionNegotiation: options.era === 'modern' ? { mode: { pin: '2026-07-28' } } : { mode: 'legacy' },
    },
  );
  const { endpoint } = options;
  const transport =
    endpoint.kind === 'stdio'
      ? new StdioClientTransport({ command: endpoint.command, args: [...endpoint.args], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(endpoint.url));
  await client.connect(transport, { timeout: options.timeoutMs });
  const pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  return {
    ...(pid !== undefined && { pid }),
    call: async () => {
      const result = await client.callTool(
        { name: 'echo', arguments: echoArgs },
        { timeout: options.timeoutMs },
      );
      if (!isEchoAnswer(result, size))
        throw new Error(`echo answered something else: ${JSON.stringify(result).slice(0, 200)}`);
    },
    close: async () => {
      // Ends a 2025 session with DELETE, as a well-behaved client does; otherwise each round
      // would leave a session (and, behind supergateway, a process) alive until its idle TTL.
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined)
        await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
