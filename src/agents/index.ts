/** Public API of the agents layer: agent sessions with lazy loading, meta-tools, LLM adapters. */
export type {
  AgentTool,
  ParsedToolCall,
  ProviderToolDefinition,
  ToolFormatOptions,
} from './adapters/agent-tool.js';
export { isForModel, modelTools } from './adapters/agent-tool.js';
export type { AnthropicTool, AnthropicToolResult } from './adapters/anthropic.js';
export { parseAnthropicToolUses, toAnthropicToolResult, toAnthropicTools } from './adapters/anthropic.js';
export { compactSchema } from './adapters/compact-schema.js';
export type { OpenAIChatTool, OpenAIChatToolMessage } from './adapters/openai-chat.js';
export {
  parseOpenAIChatToolCalls,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
} from './adapters/openai-chat.js';
export type { OpenAIResponsesTool, OpenAIResponsesToolOutput } from './adapters/openai-responses.js';
export {
  parseOpenAIResponsesToolCalls,
  toOpenAIResponsesToolOutput,
  toOpenAIResponsesTools,
} from './adapters/openai-responses.js';
export { ProviderNames } from './adapters/provider-names.js';
export type { AgentToolOutput } from './adapters/tool-output.js';
export { errorOutput, toAgentToolOutput } from './adapters/tool-output.js';
export type { VercelTool, VercelToolsOptions } from './adapters/vercel-ai.js';
export { toVercelTools } from './adapters/vercel-ai.js';
export type { EventAgent, EventAgentOptions, EventBatch } from './event-agent.js';
export { briefingOf, DEFAULT_EVENT_INTERVAL_MS, startEventAgent } from './event-agent.js';
export type { ListedServer } from './mcp-list.js';
export { injectMcpList, MCP_LIST_TAG, renderMcpList } from './mcp-list.js';
export {
  searchEmbeddingsOf,
  toolEmbeddingsFromConfig,
  useSearchEmbeddings,
} from './meta-tools/search-embeddings.js';
export { MCP_SKILLS_NAME, SKILLS_TOOL } from './meta-tools/skills-tool.js';
export type { EmbeddingProvider, OpenAIEmbeddingsOptions } from './search/embedding-provider.js';
export { createOpenAIEmbeddings } from './search/embedding-provider.js';
export type { SearchEmbeddings, ToolEmbeddings, ToolEmbeddingsOptions } from './search/tool-embeddings.js';
export { createToolEmbeddings } from './search/tool-embeddings.js';
export type { SearchableTool } from './search/tool-fields.js';
export type { ToolIndex, ToolIndexEntry, ToolSearchHit, ToolSearchOptions } from './search/tool-index.js';
export { createToolIndex, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from './search/tool-index.js';
export type { AgentCallOutcome } from './session.js';
export { AgentSession } from './session.js';
export type { ListedSkill } from './skill-list.js';
export { listedSkill, renderSkillList, skillPath } from './skill-list.js';
export type { SlashCommand } from './slash-commands.js';
export { parseSlashCommand } from './slash-commands.js';
export type { RunOptions } from './tool-rounds.js';
export { ToolRound } from './tool-rounds.js';
export { CONFIG_GROUP, effectiveToolSet } from './tool-set.js';
