import {
  type AgentTool,
  type ParsedToolCall,
  providerToolDefinitions,
  type ToolFormatOptions,
} from './agent-tool.js';
import type { ProviderNames } from './provider-names.js';
import type { ProviderSchema } from './provider-schema.js';
import { resolveToolCall } from './tool-calls.js';
import {
  type AgentToolOutput,
  DEFAULT_MAX_IMAGE_BYTES,
  type InlineImageType,
  outputParts,
} from './tool-output.js';

/**
 * Anthropic Messages API: client tools, `tool_use` content blocks, and `tool_result` blocks
 * with text and base64 images. Plain objects shaped like `@anthropic-ai/sdk`'s `Tool` and
 * `ToolResultBlockParam` (the tests check them against the real types).
 */

/** A client tool (`Tool`). */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: ProviderSchema;
}

/** The part of a response content block read here; only `tool_use` blocks are calls for us. */
export interface AnthropicContentBlockLike {
  readonly type: string;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly input?: unknown;
}

/** One block of a tool result's content (`TextBlockParam` / `ImageBlockParam`). */
export type AnthropicToolResultContent =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: InlineImageType; data: string } };

/** A `tool_result` content block (`ToolResultBlockParam`), sent in the next user message. */
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: AnthropicToolResultContent[];
  is_error: boolean;
}

export interface AnthropicResultOptions {
  /** Largest base64 image sent inline (the API's limit is 5 MB); larger ones become their reference line. */
  readonly maxImageBytes?: number;
}

/** The tools for `messages.create({ tools })`. */
export function toAnthropicTools(
  tools: readonly AgentTool[],
  options: ToolFormatOptions = {},
): AnthropicTool[] {
  return providerToolDefinitions(tools, options).map(({ name, description, parameters }) => ({
    name,
    ...(description !== undefined && { description }),
    input_schema: parameters,
  }));
}

/**
 * The `tool_use` blocks of a message's `content`, with catalog names and arguments; other
 * blocks (text, thinking, server tools) are skipped. Bad calls become error entries.
 */
export function parseAnthropicToolUses(
  content: readonly AnthropicContentBlockLike[],
  names: ProviderNames,
): ParsedToolCall[] {
  const calls: ParsedToolCall[] = [];
  for (const block of content) {
    if (block.type !== 'tool_use') continue;
    const id = typeof block.id === 'string' ? block.id : '';
    const name = typeof block.name === 'string' ? block.name : '';
    calls.push(resolveToolCall(names, id, name, { value: block.input }));
  }
  return calls;
}

/**
 * The `tool_result` block answering `toolUseId`: text blocks and base64 image blocks (PNG,
 * JPEG, GIF, WebP; other media as reference lines), `is_error` from the result. Never an
 * empty text block (the API refuses them).
 */
export function toAnthropicToolResult(
  toolUseId: string,
  output: AgentToolOutput,
  options: AnthropicResultOptions = {},
): AnthropicToolResult {
  const parts = outputParts(output, {
    maxImageBytes: options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES,
    markError: false,
  });
  const content = parts.map(
    (part): AnthropicToolResultContent =>
      part.type === 'text'
        ? { type: 'text', text: part.text }
        : {
            type: 'image',
            source: { type: 'base64', media_type: part.mimeType, data: part.base64 },
          },
  );
  return { type: 'tool_result', tool_use_id: toolUseId, content, is_error: output.isError };
}
