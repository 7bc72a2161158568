import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

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
