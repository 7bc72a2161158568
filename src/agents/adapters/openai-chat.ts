import {
  type AgentTool,
  type ParsedToolCall,
  providerToolDefinitions,
  type ToolFormatOptions,
} from './agent-tool.js';
import type { ProviderNames } from './provider-names.js';
import type { ProviderSchema } from './provider-schema.js';
import { resolveToolCall } from './tool-calls.js';
import { type AgentToolOutput, outputText } from './tool-output.js';

/**
 * OpenAI Chat Completions: tools as `{type:'function', function:{…}}`, tool calls from an
 * assistant message's `tool_calls`, results as `role: 'tool'` messages. These are plain
 * objects shaped like the `openai` package's types (`ChatCompletionFunctionTool`,
 * `ChatCompletionToolMessageParam`; the tests check them against the real types), so
 * Switchboard needs no runtime dependency on the SDK.
 */

/** A Chat Completions function tool (`ChatCompletionFunctionTool`). */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: ProviderSchema };
}

/** The part of a `ChatCompletionMessageToolCall` read here (function and custom calls). */
export interface OpenAIChatToolCallLike {
  readonly id: string;
  readonly type: string;
  readonly function?: { readonly name: string; readonly arguments: string };
  readonly custom?: { readonly name: string };
}

/** The part of an assistant `ChatCompletionMessage` read here. */
export interface OpenAIChatMessageLike {
  readonly tool_calls?: readonly OpenAIChatToolCallLike[] | null;
}

/** A tool result message (`ChatCompletionToolMessageParam`). */
export interface OpenAIChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** The tools for `chat.completions.create({ tools })`. */
export function toOpenAIChatTools(
  tools: readonly AgentTool[],
  options: ToolFormatOptions = {},
): OpenAIChatTool[] {
  return providerToolDefinitions(tools, options).map(({ name, description, parameters }) => ({
    type: 'function',
    function: { name, ...(description !== undefined && { description }), parameters },
  }));
}

/**
 * The tool calls of an assistant message, with catalog names and parsed arguments. A call
 * with arguments that are not a JSON object, to an unknown tool, or of a kind other than
 * `function` becomes an error entry (answer it with `toOpenAIChatToolMessage` and
 * `errorOutput`); nothing throws.
 */
export function parseOpenAIChatToolCalls(
  message: OpenAIChatMessageLike,
  names: ProviderNames,
): ParsedToolCall[] {
  return (message.tool_calls ?? []).map((call) => {
    if (call.type !== 'function' || call.function === undefined) {
      const providerName = call.custom?.name ?? call.function?.name ?? '';
      return {
        id: call.id,
        providerName,
        error: `"${providerName}" was called as a ${call.type} tool; it is a function tool. Call it with JSON arguments.`,
      };
    }
    return resolveToolCall(names, call.id, call.function.name, { json: call.function.arguments });
  });
}

/**
 * The tool message answering call `id`. Chat Completions tool messages take text only, so
 * media appear as their reference lines (give `toAgentToolOutput` the host's rendering for
 * URLs), and a failed call reads `Tool error: …` (there is no error flag).
 */
export function toOpenAIChatToolMessage(id: string, output: AgentToolOutput): OpenAIChatToolMessage {
  return { role: 'tool', tool_call_id: id, content: outputText(output, { markError: true }) };
}
