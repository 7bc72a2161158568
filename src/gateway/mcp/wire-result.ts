import {
  type CallToolResult,
  type JSONRPCErrorResponse,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { isBase64 } from '../../client/plain-tool-result.js';
import { objectJsonText } from '../../core/json-text.js';
import { preparedResponse } from '../http/prepared-response.js';

/**
 * The 2026-07-28 wire form of a `tools/call` answer, written without the SDK's per-request
 * server (fast-tool-call.ts). The SDK validates a handler's result against its 2026-07-28
 * result schema and encodes it (`resultType: "complete"` stamped, the server's identity put in
 * `_meta` unless the result names one already: spec PR #3002); validation can
 * change a value (unknown keys of a content block are dropped, a bad `serverInfo` is
 * replaced), so only results on which it provably changes nothing are written here —
 * `plainToolResult` says which — and every other result goes through the SDK. Pure.
 */

/** The identity the gateway's server states on every 2026-07-28 result. */
export const GATEWAY_SERVER_INFO = { name: 'switchboard', version: '0.1.0' } as const;

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);
const TEXT_KEYS = new Set(['type', 'text', '_meta']);
const MEDIA_KEYS = new Set(['type', 'data', 'mimeType', '_meta']);

/**
 * Whether the SDK's 2026-07-28 validation of `value` as a `tools/call` result would hand it
 * back unchanged: plain objects only, text, image and audio blocks with nothing but their
 * required fields and `_meta`, a boolean `isError`, and a `serverInfo` (if any) of exactly
 * `name` and `version`. Anything else — annotations, resources, links, extra keys — is left to
 * the SDK, which is exact by definition.
 */
export function plainToolResult(value: unknown): value is CallToolResult {
  if (!isPlainObject(value) || !hasOnlyKeys(value, RESULT_KEYS)) return false;
  if (value.isError !== undefined && typeof value.isError !== 'boolean') return false;
  if (value._meta !== undefined && !plainResultMeta(value._meta)) return false;
  const { content } = value;
  if (!Array.isArray(content)) return false;
  for (const block of content) if (!plainBlock(block)) return false;
  return true;
}

function plainBlock(block: unknown): boolean {
  if (!isPlainObject(block)) return false;
  if (block._meta !== undefined && !isPlainObject(block._meta)) return false;
  if (block.type === 'text') return hasOnlyKeys(block, TEXT_KEYS) && typeof block.text === 'string';
  if (block.type === 'image' || block.type === 'audio') {
    return (
      hasOnlyKeys(block, MEDIA_KEYS) &&
      typeof block.mimeType === 'string' &&
      typeof block.data === 'string' &&
      isBase64(block.data)
    );
  }
  return false;
}

function plainResultMeta(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  const info = meta[SERVER_INFO_META_KEY];
  if (info === undefined) return true;
  return (
    isPlainObject(info) &&
    hasOnlyKeys(info, SERVER_INFO_KEYS) &&
    typeof info.name === 'string' &&
    typeof info.version === 'string'
  );
}

const SERVER_INFO_KEYS = new Set(['name', 'version']);

/**
 * A plain result as the SDK encodes it for 2026-07-28: `resultType: "complete"` and the
 * gateway's identity in `_meta`, unless the result carries a server identity of its own (an
 * upstream's, relayed: the handler is the more specific author, as in the SDK).
 */
export function encodeToolResult(result: CallToolResult): Record<string, unknown> {
  const meta = result._meta;
  const stamped =
    meta === undefined
      ? { [SERVER_INFO_META_KEY]: GATEWAY_SERVER_INFO }
      : meta[SERVER_INFO_META_KEY] === undefined
        ? { ...meta, [SERVER_INFO_META_KEY]: GATEWAY_SERVER_INFO }
        : meta;
  return { ...result, resultType: 'complete', _meta: stamped };
}

/** The SDK's JSON answer to one request: status 200, the JSON-RPC response as the only body. */
export function jsonRpcResultResponse(id: string | number, result: Record<string, unknown>): Response {
  return jsonResponse(resultMessageText(id, result));
}

/**
 * `JSON.stringify({ result, jsonrpc: '2.0', id })`, the JSON-RPC response as the SDK writes it,
 * made of the result's parts' one encoding (core/json-text.ts): the audit record measured the
 * same parts, so a large result is encoded once on its way through.
 */
export function resultMessageText(id: string | number, result: Record<string, unknown>): string {
  return `{"result":${objectJsonText(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/**
 * The SDK's answer to a handler that threw: status 200 with the JSON-RPC error (its code as
 * the 2026-07-28 codec writes it: -32002 becomes -32602), or undefined for the one code the
 * SDK answers with another status (-32021, missing client capability: 400), left to the SDK.
 */
export function jsonRpcErrorResult(
  id: string | number,
  error: { readonly code: number; readonly message: string; readonly data?: unknown },
): Response | undefined {
  if (error.code === ProtocolErrorCode.MissingRequiredClientCapability) return undefined;
  return jsonResponse(JSON.stringify(jsonRpcErrorMessage(id, error)));
}

/**
 * The JSON-RPC error message the SDK sends for a handler that threw `error`: its code as the
 * codecs of both eras write it (-32002 becomes -32602; a code that is no safe integer, -32603).
 */
export function jsonRpcErrorMessage(
  id: string | number,
  error: { readonly code: number; readonly message: string; readonly data?: unknown },
): JSONRPCErrorResponse {
  const thrown = Number.isSafeInteger(error.code) ? error.code : ProtocolErrorCode.InternalError;
  const code = thrown === RESOURCE_NOT_FOUND_2025 ? ProtocolErrorCode.InvalidParams : thrown;
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message: error.message, ...(error.data !== undefined && { data: error.data }) },
  };
}

/** The 2025-era resource-not-found code, which the 2026-07-28 codec writes as -32602. */
const RESOURCE_NOT_FOUND_2025 = -32002;

function jsonResponse(text: string): Response {
  return preparedResponse(text, { status: 200, headers: { 'content-type': 'application/json' } });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
