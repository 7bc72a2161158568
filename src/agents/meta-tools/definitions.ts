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

export const REGISTER_MCP: AgentTool = {
  name: 'register_mcp',
  description:
    'Add or replace an MCP server: a local command (command, args, env) or a remote one (url, headers). Needs approval.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Letters, digits, "_", "." and "-".' },
      command: { type: 'string' },
      args: { type: 'array', items: { type: 'string' } },
      env: { type: 'object', additionalProperties: { type: 'string' } },
      url: { type: 'string' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      description: { type: 'string', description: 'What the server is for, shown in the server list.' },
      title: { type: 'string' },
    },
    required: ['name'],
  },
};

export const DELETE_MCP: AgentTool = {
  name: 'delete_mcp',
  description: 'Remove a registered MCP server. Needs approval.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

export const TOGGLE_MCP: AgentTool = {
  name: 'toggle_mcp',
  description: 'Enable or disable an MCP server.',
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, enabled: { type: 'boolean' } },
    required: ['name', 'enabled'],
  },
};

export const LIST_MCP: AgentTool = {
  name: 'list_mcp',
  description: 'List MCP servers with their state, tool counts and errors.',
  inputSchema: { type: 'object', properties: {} },
};

export const CONFIG_TOOLS: readonly AgentTool[] = [REGISTER_MCP, DELETE_MCP, TOGGLE_MCP, LIST_MCP];
