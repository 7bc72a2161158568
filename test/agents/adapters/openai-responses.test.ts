import type {
  FunctionTool,
  ResponseInputItem,
  ResponseOutputItem,
} from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  parseOpenAIResponsesToolCalls,
  toOpenAIResponsesToolOutput,
  toOpenAIResponsesTools,
} from '../../../src/agents/adapters/openai-responses.js';
import { ProviderNames } from '../../../src/agents/adapters/provider-names.js';
import { imageOutput, jsonOutput, LONG_NAME, PNG_BYTES, sampleTools } from './sample-tools.js';

const names = new ProviderNames(sampleTools.map((t) => t.name));

describe('OpenAI Responses adapter', () => {
  it('formats non-strict function tools', () => {
    const tools = toOpenAIResponsesTools(sampleTools) satisfies FunctionTool[];
    expect(tools.map((t) => t.name)).toEqual([
      'mcp__fs__read_file',
      names.toProvider(LONG_NAME),
      'activate_tools',
    ]);
    expect(tools[0]).toEqual({
      type: 'function',
      name: 'mcp__fs__read_file',
      description: 'Read a file. Only works within allowed directories.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'File to read' } },
        required: ['path'],
      },
      strict: false,
    });
    expect(tools.every((t) => t.strict === false && t.parameters.type === 'object')).toBe(true);
  });

  it('parses function_call items and skips every other output item', () => {
    const output: ResponseOutputItem[] = [
      {
        type: 'message',
        id: 'm1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Reading it.', annotations: [] }],
      },
      { type: 'function_call', call_id: 'call_1', name: 'mcp__fs__read_file', arguments: '{"path":"/a"}' },
      { type: 'function_call', call_id: 'call_2', name: 'activate_tools', arguments: '{"names":' },
    ];
    const calls = parseOpenAIResponsesToolCalls(output, names);
    expect(calls[0]).toEqual({ id: 'call_1', name: 'mcp__fs__read_file', args: { path: '/a' } });
    expect(calls[1]).toMatchObject({ id: 'call_2', providerName: 'activate_tools' });
    expect(calls[1] && 'error' in calls[1] && calls[1].error).toContain('not valid JSON');
    expect(calls).toHaveLength(2);
  });

  it('answers text-only outputs with a string', () => {
    const item = toOpenAIResponsesToolOutput(
      'call_1',
      jsonOutput(),
    ) satisfies ResponseInputItem.FunctionCallOutput;
    expect(item).toEqual({ type: 'function_call_output', call_id: 'call_1', output: '{"ok":false}' });
    expect(toOpenAIResponsesToolOutput('call_2', jsonOutput({ isError: true })).output).toBe(
      'Tool error: {"ok":false}',
    );
  });

  it('sends accepted images as input_image data URLs and the rest as input_text', () => {
    const item = toOpenAIResponsesToolOutput(
      'call_3',
      imageOutput(),
    ) satisfies ResponseInputItem.FunctionCallOutput;
    expect(item.output).toEqual([
      { type: 'input_text', text: 'Chart ready.' },
      {
        type: 'input_image',
        image_url: `data:image/png;base64,${PNG_BYTES.toString('base64')}`,
        detail: 'auto',
      },
      { type: 'input_text', text: '[image/svg+xml, 6 B, not shown]\n[report](https://x.test/report)' },
    ]);
  });

  it('falls back to text when images exceed the limit', () => {
    const item = toOpenAIResponsesToolOutput('call_4', imageOutput(), { maxImageBytes: 4 });
    expect(item.output).toBe(
      'Chart ready.\n[image/png, 8 B, not shown]\n[image/svg+xml, 6 B, not shown]\n[report](https://x.test/report)',
    );
  });
});
