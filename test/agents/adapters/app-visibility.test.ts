import { jsonSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import type { AgentTool } from '../../../src/agents/adapters/agent-tool.js';
import { toAnthropicTools } from '../../../src/agents/adapters/anthropic.js';
import { toOpenAIChatTools } from '../../../src/agents/adapters/openai-chat.js';
import { toOpenAIResponsesTools } from '../../../src/agents/adapters/openai-responses.js';
import { toVercelTools } from '../../../src/agents/adapters/vercel-ai.js';
import { agentToolOf, effectiveToolSet } from '../../../src/agents/tool-set.js';
import type { CatalogTool } from '../../../src/host/catalog/catalog.js';

/**
 * Every provider formatter leaves out a tool whose MCP Apps visibility leaves out "model",
 * however it was handed one (SEP-1865 §Visibility), and keeps the model's and the shared ones.
 */
const schema = { type: 'object', properties: {} } as const;
const tools: AgentTool[] = [
  { name: 'shared', description: 'both', inputSchema: schema, visibility: ['model', 'app'] },
  { name: 'app_only', description: 'app', inputSchema: schema, visibility: ['app'] },
  { name: 'nobody', description: 'none', inputSchema: schema, visibility: [] },
  { name: 'model_only', description: 'model', inputSchema: schema, visibility: ['model'] },
  { name: 'plain', description: 'no ui', inputSchema: schema },
];
const forModel = ['shared', 'model_only', 'plain'];

describe('provider formatters and app-only tools', () => {
  it.each([
    ['OpenAI Chat', () => toOpenAIChatTools(tools).map((t) => t.function.name)],
    ['OpenAI Responses', () => toOpenAIResponsesTools(tools).map((t) => t.name)],
    ['Anthropic', () => toAnthropicTools(tools).map((t) => t.name)],
    [
      'Vercel AI SDK',
      () =>
        Object.keys(
          toVercelTools(tools, { jsonSchema, execute: async () => ({ isError: false, parts: [] }) as never }),
        ),
    ],
  ])('%s offers only what a model may call', (_provider, names) => {
    expect(names()).toEqual(forModel);
  });
});

function catalogTool(name: string, meta?: Record<string, unknown>): CatalogTool {
  return {
    name: `mcp__s__${name}`,
    server: 's',
    hash: name,
    tool: { name, inputSchema: { type: 'object' }, ...(meta && { _meta: meta }) },
  };
}

describe('the round’s tool set', () => {
  it('takes visibility from _meta.ui and leaves app-only tools out', () => {
    const catalog = [
      catalogTool('view', { ui: { resourceUri: 'ui://s/v' } }),
      catalogTool('refresh', { ui: { resourceUri: 'ui://s/v', visibility: ['app'] } }),
      catalogTool('odd', { ui: { visibility: 'app' } }),
      catalogTool('broken', { ui: { visibility: 42 } }),
      catalogTool('plain'),
    ];
    expect(agentToolOf(catalog[1]!).visibility).toEqual(['app']);
    expect(agentToolOf(catalog[4]!).visibility).toBeUndefined();
    const set = effectiveToolSet({
      catalog,
      deferralOf: () => 'eager',
      granted: new Set(),
      metaTools: [],
      configTools: [],
    });
    expect(set.map((t) => t.name)).toEqual(['mcp__s__view', 'mcp__s__plain']);
  });
});
