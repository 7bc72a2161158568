import { type AgentTool, modelTools, providerToolDefinitions, type ToolFormatOptions } from './agent-tool.js';
import { ProviderNames } from './provider-names.js';
import { isJsonObject } from './schema-nodes.js';
import { resolveToolCall } from './tool-calls.js';
import {
  type AgentToolOutput,
  DEFAULT_MAX_IMAGE_BYTES,
  errorOutput,
  type InlineImageType,
  outputParts,
} from './tool-output.js';

/**
 * Vercel AI SDK (`ai`): a `ToolSet` record for `generateText` / `streamText`. The caller
 * passes the SDK's own `jsonSchema` function, so Switchboard has no runtime dependency on
 * `ai`; the tests check the result against the real `ToolSet` type and run it with the real
 * `jsonSchema`. A tool's `execute` resolves to a JSON value (the SDK may store it in UI
 * messages) and `toModelOutput` turns it into text, an error text, or text and images.
 */

/** What our `execute` receives besides the arguments (a subset of the SDK's `ToolExecutionOptions`). */
export interface VercelToolContext {
  readonly toolCallId: string;
  readonly abortSignal?: AbortSignal;
}

/** One part of a tool output as stored by the SDK: JSON-safe, images as base64. */
export type VercelOutputPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mediaType: InlineImageType; readonly data: string };

/** What a tool's `execute` resolves to. */
export interface VercelToolOutput {
  readonly isError: boolean;
  readonly content: readonly VercelOutputPart[];
}

/** The subset of the SDK's `ToolResultOutput` produced here. */
export type VercelModelOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | {
      type: 'content';
      value: ({ type: 'text'; text: string } | { type: 'image-data'; data: string; mediaType: string })[];
    };

/** One tool of the record: a structural `Tool` of the SDK. */
export interface VercelTool<TSchema> {
  description?: string;
  inputSchema: TSchema;
  execute: (input: unknown, options: VercelToolContext) => Promise<VercelToolOutput>;
  toModelOutput: (options: { readonly output: unknown }) => VercelModelOutput;
}

export interface VercelToolsOptions<TSchema> extends ToolFormatOptions {
  /** The `jsonSchema` function of the `ai` package (a method, so the SDK's signature fits). */
  jsonSchema(schema: object): TSchema;
  /**
   * Runs a call (policy, approval and the host call happen here). `name` is the catalog name.
   * A throw becomes the SDK's tool error, which it reports to the model.
   */
  readonly execute: (
    name: string,
    args: Record<string, unknown>,
    context: VercelToolContext,
  ) => Promise<AgentToolOutput>;
  /** Largest base64 image sent inline; larger ones are sent as their reference line. Default 5 MiB. */
  readonly maxImageBytes?: number;
}

/**
 * The tools as an AI SDK `ToolSet`, keyed by provider-safe names. Arguments that are not a
 * JSON object are answered with an error output without calling `execute`.
 */
export function toVercelTools<TSchema>(
  tools: readonly AgentTool[],
  options: VercelToolsOptions<TSchema>,
): Record<string, VercelTool<TSchema>> {
  const names = options.names ?? new ProviderNames(modelTools(tools).map((t) => t.name));
  const maxImageBytes = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const record: Record<string, VercelTool<TSchema>> = {};
  for (const definition of providerToolDefinitions(tools, { ...options, names })) {
    record[definition.name] = {
      ...(definition.description !== undefined && { description: definition.description }),
      inputSchema: options.jsonSchema(definition.parameters),
      execute: async (input, context) => {
        const call = resolveToolCall(names, context.toolCallId, definition.name, { value: input });
        const output =
          'error' in call
            ? errorOutput(call.error)
            : await options.execute(call.name, call.args, {
                toolCallId: context.toolCallId,
                ...(context.abortSignal !== undefined && { abortSignal: context.abortSignal }),
              });
        return toVercelToolOutput(output, maxImageBytes);
      },
      toModelOutput: ({ output }) => toVercelModelOutput(output),
    };
  }
  return record;
}

function toVercelToolOutput(output: AgentToolOutput, maxImageBytes: number): VercelToolOutput {
  // An error becomes error text, which carries no images: keep their reference lines instead.
  const parts = outputParts(output, { maxImageBytes: output.isError ? -1 : maxImageBytes, markError: false });
  return {
    isError: output.isError,
    content: parts.map(
      (part): VercelOutputPart =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'image', mediaType: part.mimeType, data: part.base64 },
    ),
  };
}

/** The model's view of a stored output; anything not produced by `execute` is sent as JSON text. */
export function toVercelModelOutput(output: unknown): VercelModelOutput {
  if (!isVercelToolOutput(output)) return { type: 'text', value: JSON.stringify(output) ?? '' };
  const text = () =>
    output.content
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n');
  if (output.isError) return { type: 'error-text', value: text() };
  if (output.content.every((p) => p.type === 'text')) return { type: 'text', value: text() };
  return {
    type: 'content',
    value: output.content.map((p) =>
      p.type === 'text'
        ? { type: 'text', text: p.text }
        : { type: 'image-data', data: p.data, mediaType: p.mediaType },
    ),
  };
}

function isVercelToolOutput(value: unknown): value is VercelToolOutput {
  return (
    isJsonObject(value) &&
    typeof value.isError === 'boolean' &&
    Array.isArray(value.content) &&
    value.content.every(isOutputPart)
  );
}

function isOutputPart(part: unknown): part is VercelOutputPart {
  if (!isJsonObject(part)) return false;
  if (part.type === 'text') return typeof part.text === 'string';
  return part.type === 'image' && typeof part.data === 'string' && typeof part.mediaType === 'string';
}
