import { z } from 'zod';
import { closestName } from '../../core/config/did-you-mean.js';
import { describeIssue, shownText } from '../../core/config/issue-text.js';
import { serverNameSchema } from '../../core/config/server-name.js';
import type { ProtocolError, RequestId } from './messages.js';

/**
 * The requests of the JSON-lines host protocol (`switchboard host --jsonl`, documented in
 * docs/jsonl-protocol.md): one JSON object per line, validated here into a typed request or
 * an error that names the problem and shows a line that would work. Pure.
 */

/** The ops a front-end can send. */
export const OPS = ['mcp_list', 'mcp_set', 'mcp_remove', 'mcp_toggle', 'call', 'resolve'] as const;
export type Op = (typeof OPS)[number];

/** How an inbox item is answered: approvals take the first three, elicitations the last three. */
export const RESOLVE_ANSWERS = ['approve', 'always', 'decline', 'accept', 'cancel'] as const;
export type ResolveAnswer = (typeof RESOLVE_ANSWERS)[number];

const requestId = z.union([z.string().max(256), z.number().finite()]);
const nonEmpty = z.string().min(1);
const argumentsObject = z.record(z.string(), z.unknown());

const SCHEMAS = {
  mcp_list: z.strictObject({ op: z.literal('mcp_list'), id: requestId.optional() }),
  mcp_set: z.strictObject({
    op: z.literal('mcp_set'),
    id: requestId.optional(),
    // The name is held to the one rule of every entry point here; the entry's other fields are
    // checked by the host's config schema, which names them.
    server: z.looseObject({ name: serverNameSchema }),
  }),
  mcp_remove: z.strictObject({ op: z.literal('mcp_remove'), id: requestId.optional(), name: nonEmpty }),
  mcp_toggle: z.strictObject({
    op: z.literal('mcp_toggle'),
    id: requestId.optional(),
    name: nonEmpty,
    enabled: z.boolean(),
  }),
  call: z.strictObject({
    op: z.literal('call'),
    id: requestId.optional(),
    tool: nonEmpty,
    server: nonEmpty.optional(),
    arguments: argumentsObject.optional(),
  }),
  resolve: z.strictObject({
    op: z.literal('resolve'),
    id: requestId.optional(),
    itemId: nonEmpty,
    answer: z.enum(RESOLVE_ANSWERS).optional(),
    content: argumentsObject.optional(),
  }),
} as const satisfies Record<Op, z.ZodType>;

export type McpListRequest = z.infer<(typeof SCHEMAS)['mcp_list']>;
export type McpSetRequest = z.infer<(typeof SCHEMAS)['mcp_set']>;
export type McpRemoveRequest = z.infer<(typeof SCHEMAS)['mcp_remove']>;
export type McpToggleRequest = z.infer<(typeof SCHEMAS)['mcp_toggle']>;
export type CallRequest = z.infer<(typeof SCHEMAS)['call']>;
export type ResolveRequest = z.infer<(typeof SCHEMAS)['resolve']>;

/** A valid request. */
export type JsonlRequest =
  | McpListRequest
  | McpSetRequest
  | McpRemoveRequest
  | McpToggleRequest
  | CallRequest
  | ResolveRequest;

/** A line that works, for each op: shown in every error about that op. */
export const EXAMPLES: Readonly<Record<Op, string>> = {
  mcp_list: '{"op":"mcp_list"}',
  mcp_set: '{"op":"mcp_set","server":{"name":"weather","command":"node","args":["weather.js"]}}',
  mcp_remove: '{"op":"mcp_remove","name":"weather"}',
  mcp_toggle: '{"op":"mcp_toggle","name":"weather","enabled":false}',
  call: '{"op":"call","id":1,"server":"weather","tool":"get_forecast","arguments":{"city":"Lisbon"}}',
  resolve: '{"op":"resolve","itemId":"<id of the inbox item>","answer":"approve"}',
};

const HINTS: Readonly<Record<string, string>> = {
  id: 'a string or a number of your choosing, echoed on the answer',
  name: 'the server\'s name as a string, e.g. "weather"',
  enabled: 'true or false',
  tool: 'the tool\'s name as a string: its own with "server", or the catalog name "mcp__<server>__<tool>"',
  server: 'the server\'s name as a string (call), or an entry object with a "name" (mcp_set)',
  'server.name': 'the server\'s name as a string, e.g. "weather"',
  arguments: 'an object of the tool\'s arguments, e.g. {"city":"Lisbon"}',
  itemId: 'the "id" of the inbox item as a string',
  content: 'an object of the form\'s fields, e.g. {"api_key":"…"}',
};

/** The outcome of reading one line: a request, or an error (with the request's id when it had a valid one). */
export type ParsedLine =
  | { readonly ok: true; readonly request: JsonlRequest }
  | { readonly ok: false; readonly id?: RequestId; readonly error: ProtocolError };

/** Parses and validates one input line. Never throws. */
export function parseRequestLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const why = error instanceof Error ? ` (${error.message})` : '';
    return failure(
      'PARSE_ERROR',
      `The line is not JSON${why}. Send one JSON object per line, e.g. ${EXAMPLES.mcp_list}.`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failure(
      'INVALID_REQUEST',
      `The line is JSON but ${describeKind(value)}, not an object. Send one JSON object per line, e.g. ${EXAMPLES.mcp_list}.`,
    );
  }
  const fields = value as Record<string, unknown>;
  const idCheck = requestId.safeParse(fields.id);
  const id = idCheck.success ? idCheck.data : undefined;
  if (fields.id !== undefined && !idCheck.success) {
    return failure('INVALID_FIELD', `Field "id" must be ${HINTS.id}; got ${describeKind(fields.id)}.`);
  }
  const op = fields.op;
  if (op === undefined) {
    return failure(
      'INVALID_FIELD',
      `Field "op" is missing. Name the op, one of ${OPS.join(', ')}. Example: ${EXAMPLES.mcp_list}`,
      id,
    );
  }
  if (typeof op !== 'string' || !isOp(op)) {
    const guess = typeof op === 'string' ? (closestName(op, OPS) as Op | undefined) : undefined;
    const fix = guess ? `Did you mean "${guess}"?` : `Use one of ${OPS.join(', ')}.`;
    return failure(
      'UNKNOWN_OP',
      `Unknown op ${typeof op === 'string' ? shownText(op) : describeKind(op)}. ${fix} Example: ${EXAMPLES[guess ?? 'mcp_list']}`,
      id,
    );
  }
  const schema = SCHEMAS[op];
  const parsed = schema.safeParse(fields);
  if (parsed.success) return { ok: true, request: parsed.data as JsonlRequest };
  const issue = parsed.error.issues[0]!;
  return failure('INVALID_FIELD', `${op}: ${explain(issue, schema, fields)} Example: ${EXAMPLES[op]}`, id);
}

function isOp(value: string): value is Op {
  return (OPS as readonly string[]).includes(value);
}

function explain(issue: z.core.$ZodIssue, schema: z.ZodType, fields: Record<string, unknown>): string {
  const path = issue.path.map(String);
  if (issue.code === 'invalid_type' && valueAt(fields, path) === undefined) {
    const field = path.join('.');
    const hint = HINTS[field];
    return `field "${field}" is missing.${hint ? ` Give ${hint}.` : ''}`;
  }
  const { field, problem } = describeIssue(issue, schema, HINTS);
  return `field "${field}": ${problem}`;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function failure(code: ProtocolError['code'], message: string, id?: RequestId): ParsedLine {
  return { ok: false, ...(id !== undefined && { id }), error: { code, message } };
}
