import type { CallToolResult } from '@modelcontextprotocol/client';
import { describeError, isSwitchboardError, type SwitchboardErrorCode } from '../../core/errors.js';
import type { InboxAction, InboxItem, InboxOutcome } from '../../host/inbox/inbox.js';
import { type InboxItemJson, inboxItemJson } from '../../host/inbox/inbox-item-json.js';
import type { ServerView } from './server-view.js';

/**
 * The lines the host writes on stdout in the JSON-lines protocol (docs/jsonl-protocol.md):
 * their shapes, and the one encoder that turns each into exactly one line. Pure.
 */

/** The client's own request id: echoed on the answer, never interpreted. */
export type RequestId = string | number;

/** Codes of the protocol's own errors; errors from the host keep their SwitchboardError code. */
export const PROTOCOL_ERROR_CODES = [
  'PARSE_ERROR',
  'INVALID_REQUEST',
  'UNKNOWN_OP',
  'INVALID_FIELD',
  'LINE_TOO_LONG',
  'INTERNAL',
] as const;
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

/** What an error line carries: a stable code and a message that says what to do. */
export interface ProtocolError {
  readonly code: ProtocolErrorCode | SwitchboardErrorCode;
  readonly message: string;
}

export type JsonlMessage =
  | { readonly type: 'mcp_servers'; readonly id?: RequestId; readonly servers: readonly ServerView[] }
  | {
      readonly type: 'result';
      readonly id?: RequestId;
      readonly tool: string;
      readonly result: CallToolResult;
    }
  | {
      readonly type: 'resolved';
      readonly id?: RequestId;
      readonly itemId: string;
      readonly action: InboxAction;
    }
  | { readonly type: 'inbox'; readonly item: InboxItemJson }
  | { readonly type: 'inbox_resolved'; readonly itemId: string; readonly outcome: InboxOutcome }
  | { readonly type: 'error'; readonly id?: RequestId; readonly error: ProtocolError };

/** One message as one line (JSON.stringify escapes every newline inside strings). */
export function encodeMessage(message: JsonlMessage): string {
  return JSON.stringify(message);
}

// The id sits right after the type, and is absent when the request had none.

export function serversMessage(servers: readonly ServerView[], id?: RequestId): JsonlMessage {
  return { type: 'mcp_servers', ...(id !== undefined && { id }), servers };
}

export function resultMessage(tool: string, result: CallToolResult, id?: RequestId): JsonlMessage {
  return { type: 'result', ...(id !== undefined && { id }), tool, result };
}

export function resolvedMessage(itemId: string, action: InboxAction, id?: RequestId): JsonlMessage {
  return { type: 'resolved', ...(id !== undefined && { id }), itemId, action };
}

export function errorMessage(error: ProtocolError, id?: RequestId): JsonlMessage {
  return { type: 'error', ...(id !== undefined && { id }), error };
}

export function inboxMessage(item: InboxItem): JsonlMessage {
  return { type: 'inbox', item: inboxItemJson(item) };
}

export function inboxResolvedMessage(item: InboxItem, outcome: InboxOutcome): JsonlMessage {
  return { type: 'inbox_resolved', itemId: item.id, outcome };
}

/** The error line's payload for anything an op threw: the SwitchboardError code, else INTERNAL. */
export function errorFromThrown(error: unknown): ProtocolError {
  if (isSwitchboardError(error)) return { code: error.code, message: error.message };
  return {
    code: 'INTERNAL',
    message: `${describeError(error)}. This is a bug in Switchboard; the host keeps running — please report it.`,
  };
}
