/**
 * A JSON-RPC error body with an HTTP status, shaped like the SDK transport's own answers
 * (JSON-RPC 2.0 §5: `id` is null when the request's id is unknown), for the refusals the MCP
 * endpoints make before a server instance sees the message.
 */
export function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
