import { modelTools, type ParsedToolCall } from './adapters/agent-tool.js';
import {
  type AnthropicContentBlockLike,
  type AnthropicTool,
  type AnthropicToolResult,
  parseAnthropicToolUses,
  toAnthropicToolResult,
  toAnthropicTools,
} from './adapters/anthropic.js';
import {
  type OpenAIChatMessageLike,
  type OpenAIChatTool,
  type OpenAIChatToolMessage,
  parseOpenAIChatToolCalls,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
} from './adapters/openai-chat.js';
import {
  type OpenAIResponsesItemLike,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolOutput,
  parseOpenAIResponsesToolCalls,
  toOpenAIResponsesToolOutput,
  toOpenAIResponsesTools,
} from './adapters/openai-responses.js';
import { ProviderNames } from './adapters/provider-names.js';
import { type AgentToolOutput, errorOutput } from './adapters/tool-output.js';
import { toVercelTools, type VercelTool } from './adapters/vercel-ai.js';
import type { AgentSession } from './session.js';
import type { AgentTool } from './tool-set.js';

/**
 * One round of an agent loop, for each provider: the session's tool set now (recomputed
 * every round, so last round's grants show), in the provider's format, and the runner that
 * executes the calls the model made in reply — policy, approval, host call — and returns the
 * provider's tool-result messages, in call order.
 */
export class ToolRound {
  private constructor(
    private readonly session: AgentSession,
    /** The tools of this round, as Switchboard names them. */
    readonly tools: readonly AgentTool[],
    /** Catalog name ↔ provider-safe name, for this round's tools. */
    readonly names: ProviderNames,
  ) {}

  /** Takes the session's tool set for this round. */
  static async of(session: AgentSession): Promise<ToolRound> {
    // The session's set has no app-only tools already; the round holds to it whatever it is given.
    const tools = modelTools(await session.tools());
    return new ToolRound(session, tools, new ProviderNames(tools.map((t) => t.name)));
  }

  openAIChatTools(): OpenAIChatTool[] {
    return toOpenAIChatTools(this.tools, { names: this.names });
  }

  /** Runs the `tool_calls` of an assistant message; returns the `role: 'tool'` messages. */
  async runOpenAIChat(
    message: OpenAIChatMessageLike,
    options: RunOptions = {},
  ): Promise<OpenAIChatToolMessage[]> {
    const calls = parseOpenAIChatToolCalls(message, this.names);
    const outputs = await this.run(calls, options);
    return calls.map((c, i) => toOpenAIChatToolMessage(c.id, outputs[i]!));
  }

  openAIResponsesTools(): OpenAIResponsesTool[] {
    return toOpenAIResponsesTools(this.tools, { names: this.names });
  }

  /** Runs the `function_call` items of a response's output; returns `function_call_output` items. */
  async runOpenAIResponses(
    items: readonly OpenAIResponsesItemLike[],
    options: RunOptions = {},
  ): Promise<OpenAIResponsesToolOutput[]> {
    const calls = parseOpenAIResponsesToolCalls(items, this.names);
    const outputs = await this.run(calls, options);
    return calls.map((c, i) => toOpenAIResponsesToolOutput(c.id, outputs[i]!));
  }

  anthropicTools(): AnthropicTool[] {
    return toAnthropicTools(this.tools, { names: this.names });
  }

  /** Runs the `tool_use` blocks of a message; returns the `tool_result` blocks for the next user turn. */
  async runAnthropic(
    content: readonly AnthropicContentBlockLike[],
    options: RunOptions = {},
  ): Promise<AnthropicToolResult[]> {
    const calls = parseAnthropicToolUses(content, this.names);
    const outputs = await this.run(calls, options);
    return calls.map((c, i) => toAnthropicToolResult(c.id, outputs[i]!));
  }

  /**
   * The round's tools as an AI SDK `ToolSet`; the SDK runs them itself. Pass the `jsonSchema`
   * function of the `ai` package.
   */
  vercelTools<TSchema>(jsonSchema: (schema: object) => TSchema): Record<string, VercelTool<TSchema>> {
    return toVercelTools(this.tools, {
      names: this.names,
      jsonSchema,
      execute: async (name, args, context) =>
        (
          await this.session.execute(name, args, {
            ...(context.abortSignal && { signal: context.abortSignal }),
          })
        ).output,
    });
  }

  /** Runs calls concurrently (each may wait on its own approval); malformed calls are answered with their error. */
  private run(calls: readonly ParsedToolCall[], options: RunOptions): Promise<AgentToolOutput[]> {
    return Promise.all(
      calls.map(async (call) => {
        if ('error' in call) return errorOutput(call.error);
        const outcome = await this.session.execute(call.name, call.args, {
          ...(options.signal && { signal: options.signal }),
        });
        return outcome.output;
      }),
    );
  }
}

export interface RunOptions {
  /** Cancels the calls still running (their servers are told). */
  readonly signal?: AbortSignal;
}
