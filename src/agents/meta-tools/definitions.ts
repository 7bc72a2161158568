import { MANAGEMENT_TOOLS } from '../../host/management/management-tools.js';
import type { AgentTool } from '../tool-set.js';

/**
 * The meta-tools' definitions as a model sees them. Kept terse on purpose: they are in every
 * request, and the whole point of lazy loading is to spend few tokens before a tool is needed.
 * What they leave unsaid their answers say: activation says the tools are usable from the
 * next step, a search says which hits are loaded and how to load the rest. The resources and
 * prompts meta-tool is content-tool.ts's, declared for what the catalog offers.
 */

export const ACTIVATE_TOOLS: AgentTool = {
  name: 'activate_tools',
  description: 'Load MCP server tools or "config".',
  inputSchema: {
    type: 'object',
    properties: { groups: { type: 'array', items: { type: 'string' } } },
    required: ['groups'],
  },
};

export const SEARCH_TOOLS: AgentTool = {
  name: 'search_tools',
  description: 'Find MCP tools by purpose.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
  },
};

/** The `config` group: the host's management tools, as a model sees them. */
export const CONFIG_TOOLS: readonly AgentTool[] = MANAGEMENT_TOOLS.map((t) => ({
  name: t.name,
  description: t.description ?? '',
  inputSchema: t.inputSchema,
}));
