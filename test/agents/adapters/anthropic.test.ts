import type { ContentBlock, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import {
  parseAnthropicToolUses,
  toAnthropicToolResult,
  toAnthropicTools,
} from '../../../src/agents/adapters/anthropic.js';
import { ProviderNames } from '../../../src/agents/adapters/provider-names.js';
import { errorOutput } from '../../../src/agents/adapters/tool-output.js';
import { imageOutput, jsonOutput, LONG_NAME, PNG_BYTES, sampleTools } from './sample-tools.js';

const names = new ProviderNames(sampleTools.map((t) => t.name));

describe('Anthropic Messages adapter', () => {
  it('formats client tools with input_schema', () => {
    const tools = toAnthropicTools(sampleTools) satisfies Tool[];
    expect(tools[0]).toEqual({
      name: 'mcp__fs__read_file',
      description: 'Read a file. Only works within allowed directories.',
      input_schema: {
        type: 'object',
        properties: { path: { type: 'string', description: 'File to read' } },
        required: ['path'],
      },
    });
    expect(tools[1]).toEqual({
      name: names.toProvider(LONG_NAME),
      input_schema: { type: 'object', properties: {} },
    });
    expect(tools[2]?.input_schema).not.toHaveProperty('anyOf');
  });

  it('parses tool_use blocks from message content and skips other blocks', () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: names.toProvider(LONG_NAME),
        input: { quarter: 'Q3' },
        caller: { type: 'direct' },
      },
      { type: 'tool_use', id: 'toolu_2', name: 'mcp__gone__tool', input: {}, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'toolu_3', name: 'activate_tools', input: 'names', caller: { type: 'direct' } },
    ];
    const calls = parseAnthropicToolUses(content, names);
    expect(calls[0]).toEqual({ id: 'toolu_1', name: LONG_NAME, args: { quarter: 'Q3' } });
    expect(calls[1]).toMatchObject({ id: 'toolu_2', providerName: 'mcp__gone__tool' });
    expect(calls[2] && 'error' in calls[2] && calls[2].error).toContain('not a string');
    expect(calls).toHaveLength(3);
  });

  it('answers with text and base64 image blocks; other media as references', () => {
    const result = toAnthropicToolResult('toolu_1', imageOutput()) satisfies ToolResultBlockParam;
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      is_error: false,
      content: [
        { type: 'text', text: 'Chart ready.' },
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: PNG_BYTES.toString('base64') },
        },
        { type: 'text', text: '[image/svg+xml, 6 B, not shown]\n[report](https://x.test/report)' },
      ],
    });
  });

  it('flags errors with is_error rather than a text marker', () => {
    const result = toAnthropicToolResult(
      'toolu_2',
      jsonOutput({ isError: true }),
    ) satisfies ToolResultBlockParam;
    expect(result).toMatchObject({ is_error: true, content: [{ type: 'text', text: '{"ok":false}' }] });
    const empty = toAnthropicToolResult('toolu_3', errorOutput(''));
    expect(empty.content).toEqual([{ type: 'text', text: '(empty result)' }]);
  });
});
