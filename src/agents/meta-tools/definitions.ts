import { MANAGEMENT_TOOLS } from '../../host/management/management-tools.js';
import type { AgentTool } from '../tool-set.js';

/**
 * The meta-tools' definitions as a model sees them. Kept terse on purpose: they are in every
 * request, and the whole point of lazy loading is to spend few tokens before a tool is needed.
 */

export const ACTIVATE_TOOLS: AgentTool = {
  name: 'activate_tools',
  description:
    'Load the tools of MCP servers (names from the MCP server list), or "config" for server management. Loaded tools are usable from your next step.',
  inputSchema: {
    type: 'object',
    properties: { groups: { type: 'array', items: { type: 'string' } } },
    required: ['groups'],
  },
};

export const SEARCH_TOOLS: AgentTool = {
  name: 'search_tools',
  description: 'Find MCP tools, loaded or not, by what they do.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, limit: { type: 'integer' } },
    required: ['query'],
  },
};

export const MCP_RESOURCES: AgentTool = {
  name: 'mcp_resources',
  description:
    'List, read, or list templates of MCP resources. server is required when several servers exist.',
  inputSchema: {
    type: 'object',
    properties: {
      action: { enum: ['list', 'read', 'templates'] },
      server: { type: 'string' },
      uri: { type: 'string' },
    },
    required: ['action'],
  },
};

export const MCP_PROMPTS: AgentTool = {
  name: 'mcp_prompts',
  description: "List MCP prompts, or get one's messages.",
  inputSchema: {
    type: 'object',
    properties: {
      action: { enum: ['list', 'get'] },
      server: { type: 'string' },
      name: { type: 'string' },
      arguments: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['action'],
  },
};

/** The `config` group: the host's management tools, as a model sees them. */
export const CONFIG_TOOLS: readonly AgentTool[] = MANAGEMENT_TOOLS.map((t) => ({
  name: t.name,
  description: t.description ?? '',
  inputSchema: t.inputSchema,
}));
