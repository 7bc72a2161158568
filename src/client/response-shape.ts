import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
} from '@modelcontextprotocol/client';

/**
 * Answers with the right id and the wrong shape. The SDK does not take a message for a
 * response unless it matches its JSON-RPC schema (JSON-RPC 2.0 §5: exactly one of `result` or
 * `error`; an error object with an integer `code` and a string `message`), so it drops one
 * like `{ id: 7, result: 42 }` and the request it answers waits for its timeout; over HTTP a
 * JSON body like that fails its request with the parser's error, an SSE event is skipped.
 * Here such an answer becomes a JSON-RPC error for its id, saying what was wrong, so the
 * request fails at once, the same way on every transport and on the direct lane.
 *
 * The check is by hand and cheap for the common, well-formed answer; a problem it finds is
 * confirmed with the SDK's own guards before anything is changed, so an answer the SDK would
 * take is never touched. A response whose id nobody waits for (a duplicate, a late or stray
 * answer) is turned into an error just the same, and the protocol layer drops it as it drops
 * any response for an unknown id: ids are never reused, so no other request is answered.
 */

/** JSON-RPC code of the error that stands in for a malformed answer (implementation-defined range). */
export const MALFORMED_RESPONSE_CODE = -32098;

/**
 * The `data` of such an error: what was wrong, and the answer as it came. The error never
 * goes on the wire, so this object reaches the error mapping as is, and no server can send
 * one: a server's own -32098 is not taken for ours.
 */
export class MalformedResponse {
  constructor(
    readonly problem: string,
    readonly original: unknown,
  ) {}
}

type Fields = Record<string, unknown>;

const RESPONSE_MEMBERS = new Set(['jsonrpc', 'id', 'result', 'error']);

/**
 * What is wrong with `message` as a response, or undefined when it is none (a request, a
 * notification, or a message without a usable id) or a well-formed one. Pure.
 */
export function responseProblem(message: unknown): string | undefined {
  if (!isObject(message) || 'method' in message || !('id' in message)) return undefined;
  const { id } = message;
  // Without a string or integer id, the answer cannot be matched to a request.
  if (typeof id !== 'string' && !Number.isInteger(id)) return undefined;
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (hasResult && hasError) return 'it carries both "result" and "error"';
  if (!hasResult && !hasError) return 'it carries neither "result" nor "error"';
  if (message.jsonrpc !== '2.0') return `its "jsonrpc" is ${describe(message.jsonrpc)}, not "2.0"`;
  for (const key in message) {
    if (!RESPONSE_MEMBERS.has(key)) return `it carries a member JSON-RPC has no place for, "${key}"`;
  }
  if (hasResult) {
    const { result } = message;
    if (!isObject(result)) return `its "result" is ${describe(result)}, not an object`;
    if ('_meta' in result && !isObject(result._meta))
      return `its "result._meta" is ${describe(result._meta)}, not an object`;
    return undefined;
  }
  const { error } = message;
  if (!isObject(error)) return `its "error" is ${describe(error)}, not an object`;
  if (!Number.isInteger(error.code))
    return `its "error" has no integer "code" (it is ${describe(error.code)})`;
  if (typeof error.message !== 'string')
    return `its "error" has no string "message" (it is ${describe(error.message)})`;
  return undefined;
}

/**
 * The error response that stands in for a malformed answer, or undefined when `message` is
 * no malformed answer (see the top).
 */
export function repairResponse(message: unknown): JSONRPCErrorResponse | undefined {
  const problem = responseProblem(message);
  if (problem === undefined) return undefined;
  // The SDK's guards have the last word: what they take is left alone.
  if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) return undefined;
  return {
    jsonrpc: '2.0',
    id: (message as { id: string | number }).id,
    error: {
      code: MALFORMED_RESPONSE_CODE,
      message: `malformed response: ${problem}`,
      data: new MalformedResponse(problem, message),
    },
  };
}

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value === 'string' ? 'the string' : `the ${typeof value}`} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

/**
 * The error response for a line a stdio server wrote that the transport took for no JSON-RPC
 * at all (its "jsonrpc" is not "2.0") although it answers a request: JSON with a `jsonrpc`
 * member and an id. A server's JSON log lines carry no `jsonrpc` and are left as they are.
 */
export function repairNoiseLine(line: string): JSONRPCErrorResponse | undefined {
  if (!line.startsWith('{') || !line.includes('"jsonrpc"')) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isObject(message) && 'jsonrpc' in message ? repairResponse(message) : undefined;
}
