import type { ToolAudience } from '../../core/mcp-apps.js';
import { compactDescription, compactSchema } from './compact-schema.js';
import { ProviderNames } from './provider-names.js';
import { type ProviderSchema, toProviderSchema } from './provider-schema.js';

/**
 * A tool as an agent session offers it to a model in one round: a catalog name
 * (`mcp__github__create_issue`) or a meta-tool name (`activate_tools`), a description and
 * a JSON Schema for its arguments. Every provider adapter starts from this shape.
 */
export interface AgentTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /**
   * Who may call it, from the server's MCP Apps `_meta.ui.visibility`; absent, everyone. A
   * tool whose visibility leaves out `"model"` is an app's own and is never given to a model
   * (SEP-1865 §Visibility): every formatter leaves it out.
   */
  readonly visibility?: readonly ToolAudience[];
}

/** Whether a model may be given `tool` (its visibility, when it has one, includes `"model"`). */
export function isForModel(tool: Pick<AgentTool, 'visibility'>): boolean {
  return tool.visibility === undefined || tool.visibility.includes('model');
}

/** The tools of `tools` a model may be given, in order (the same array when that is all of them). */
export function modelTools<T extends Pick<AgentTool, 'visibility'>>(tools: readonly T[]): readonly T[] {
  return tools.every(isForModel) ? tools : tools.filter(isForModel);
}

/** Options every `to…Tools` formatter takes. */
export interface ToolFormatOptions {
  /** Compact schemas and descriptions (`compactSchema`). Default true. */
  readonly compact?: boolean;
  /**
   * The name mapping. Default: one built from `tools`. Give the same mapping (or one built
   * from the same tools) to the matching parser, which maps names back with it.
   */
  readonly names?: ProviderNames;
}

/** A tool definition in provider terms: a provider-safe name, a description, an object schema. */
export interface ProviderToolDefinition {
  readonly name: string;
  /** Absent when the tool has no description (APIs treat it as optional). */
  readonly description?: string;
  readonly parameters: ProviderSchema;
}

/**
 * The provider-neutral part of every formatter: names mapped, schemas adapted to what LLM
 * APIs take at the root (`toProviderSchema`) and, unless disabled, compacted.
 */
export function providerToolDefinitions(
  tools: readonly AgentTool[],
  options: ToolFormatOptions = {},
): ProviderToolDefinition[] {
  const offered = modelTools(tools);
  const names = options.names ?? new ProviderNames(offered.map((t) => t.name));
  const compact = options.compact ?? true;
  return offered.map((tool) => {
    const schema = compact ? compactSchema(tool.inputSchema, { toolName: tool.name }) : tool.inputSchema;
    const description = compact ? compactDescription(tool.description) : tool.description;
    return {
      name: names.toProvider(tool.name),
      ...(description !== '' && { description }),
      parameters: toProviderSchema(schema, tool.name),
    };
  });
}

/** One tool call a model made, mapped back to the catalog: run it, or answer with `error`. */
export type ParsedToolCall =
  | {
      readonly id: string;
      /** The catalog name. */
      readonly name: string;
      readonly args: Record<string, unknown>;
    }
  | {
      readonly id: string;
      /** The name as the model wrote it. */
      readonly providerName: string;
      /** What went wrong, in words meant for the model (send it back as an error result). */
      readonly error: string;
    };
