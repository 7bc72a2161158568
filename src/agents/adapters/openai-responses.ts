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
  hasInlineImages,
  outputParts,
  outputText,
} from './tool-output.js';

/**
 * OpenAI Responses API: function tools, `function_call` output items, and
 * `function_call_output` input items. A function call output may be a string or a list of
 * `input_text` / `input_image` parts, so images a tool returns reach the model. Plain objects
 * shaped like the `openai` package's `FunctionTool` and `ResponseInputItem.FunctionCallOutput`.
 */

/** A Responses function tool (`FunctionTool`). `strict: false`: MCP schemas are not strict-mode schemas. */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: ProviderSchema;
  strict: false;
}

/**
 * The part of a `ResponseOutputItem` read here. Every item has a `type`; only
 * `function_call` items are tool calls for us (others are messages, reasoning, server tools).
 */
export interface OpenAIResponsesItemLike {
  readonly type: string;
  readonly call_id?: unknown;
  readonly name?: unknown;
  readonly arguments?: unknown;
}

/** One part of a function call output (`ResponseInputTextContent` / `ResponseInputImageContent`). */
export type OpenAIResponsesOutputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' };

/** A `function_call_output` input item (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIResponsesToolOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | OpenAIResponsesOutputPart[];
}

export interface OpenAIResponsesOutputOptions {
  /** Largest base64 image sent inline; larger ones are sent as their reference line. Default 5 MiB. */
  readonly maxImageBytes?: number;
}

/** The tools for `responses.create({ tools })`. */
export function toOpenAIResponsesTools(
  tools: readonly AgentTool[],
  options: ToolFormatOptions = {},
): OpenAIResponsesTool[] {
  return providerToolDefinitions(tools, options).map(({ name, description, parameters }) => ({
    type: 'function',
    name,
    ...(description !== undefined && { description }),
    parameters,
    strict: false,
  }));
}

/**
 * The function calls among a response's output items (`response.output`), with catalog
 * names and parsed arguments; other items are skipped. Bad calls become error entries.
 */
export function parseOpenAIResponsesToolCalls(
  items: readonly OpenAIResponsesItemLike[],
  names: ProviderNames,
): ParsedToolCall[] {
  const calls: ParsedToolCall[] = [];
  for (const item of items) {
    if (item.type !== 'function_call') continue;
    const id = typeof item.call_id === 'string' ? item.call_id : '';
    const name = typeof item.name === 'string' ? item.name : '';
    const json = typeof item.arguments === 'string' ? item.arguments : '';
    calls.push(resolveToolCall(names, id, name, { json }));
  }
  return calls;
}

/**
 * The `function_call_output` answering `callId`: a string when the output is text only, a
 * list of `input_text` and `input_image` parts (images as base64 data URLs) when it holds
 * images the API accepts. A failed call reads `Tool error: …` (there is no error flag).
 */
export function toOpenAIResponsesToolOutput(
  callId: string,
  output: AgentToolOutput,
  options: OpenAIResponsesOutputOptions = {},
): OpenAIResponsesToolOutput {
  const policy = { maxImageBytes: options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES };
  if (!hasInlineImages(output, policy)) {
    return { type: 'function_call_output', call_id: callId, output: outputText(output, { markError: true }) };
  }
  const parts = outputParts(output, { ...policy, markError: true }).map(
    (part): OpenAIResponsesOutputPart =>
      part.type === 'text'
        ? { type: 'input_text', text: part.text }
        : { type: 'input_image', image_url: `data:${part.mimeType};base64,${part.base64}`, detail: 'auto' },
  );
  return { type: 'function_call_output', call_id: callId, output: parts };
}
