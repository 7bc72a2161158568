import type {
  ChatCompletionMessage,
  ChatCompletionTool,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import {
  parseOpenAIChatToolCalls,
  toOpenAIChatToolMessage,
  toOpenAIChatTools,
} from '../../../src/agents/adapters/openai-chat.js';
import { ProviderNames } from '../../../src/agents/adapters/provider-names.js';
import { errorOutput } from '../../../src/agents/adapters/tool-output.js';
import { imageOutput, jsonOutput, LONG_NAME, sampleTools } from './sample-tools.js';

const names = new ProviderNames(sampleTools.map((t) => t.name));

function assistant(toolCalls: ChatCompletionMessage['tool_calls']): ChatCompletionMessage {
  return { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls };
}

describe('OpenAI Chat Completions adapter', () => {
  it('formats function tools with compacted schemas and provider-safe names', () => {
    const tools = toOpenAIChatTools(sampleTools) satisfies ChatCompletionTool[];
    expect(tools[0]).toEqual({
      type: 'function',
      function: {
        name: 'mcp__fs__read_file',
        description: 'Read a file. Only works within allowed directories.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string', description: 'File to read' } },
          required: ['path'],
        },
      },
    });
    const long = tools[1]!;
    expect(long.function.name).toBe(names.toProvider(LONG_NAME));
    expect(long.function.name.length).toBeLessThanOrEqual(64);
    expect(long.function).not.toHaveProperty('description');
    expect(long.function.parameters).toEqual({ type: 'object', properties: {} });
    const union = tools[2]!.function.parameters;
    expect(union).not.toHaveProperty('anyOf');
    expect(Object.keys(union.properties)).toEqual(['names', 'server']);
  });

  it('leaves schemas and descriptions as sent when compaction is off', () => {
    const [tool] = toOpenAIChatTools(sampleTools.slice(0, 1), { compact: false });
    expect(tool?.function.description).toBe(sampleTools[0]?.description);
    expect(tool?.function.parameters.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(tool?.function.parameters.properties).toEqual({
      path: { title: 'Path', type: 'string', description: 'File to read' },
    });
  });

  it('parses function calls back to catalog names and argument objects', () => {
    const message = assistant([
      { id: 'c1', type: 'function', function: { name: 'mcp__fs__read_file', arguments: '{"path":"a.txt"}' } },
      { id: 'c2', type: 'function', function: { name: names.toProvider(LONG_NAME), arguments: '' } },
    ]);
    expect(parseOpenAIChatToolCalls(message, names)).toEqual([
      { id: 'c1', name: 'mcp__fs__read_file', args: { path: 'a.txt' } },
      { id: 'c2', name: LONG_NAME, args: {} },
    ]);
    expect(parseOpenAIChatToolCalls(assistant(undefined), names)).toEqual([]);
  });

  it('turns bad calls into error entries instead of throwing', () => {
    const calls = parseOpenAIChatToolCalls(
      assistant([
        { id: 'bad-json', type: 'function', function: { name: 'mcp__fs__read_file', arguments: '{"path":' } },
        { id: 'array', type: 'function', function: { name: 'mcp__fs__read_file', arguments: '[1]' } },
        { id: 'unknown', type: 'function', function: { name: 'mcp__fs__delete_all', arguments: '{}' } },
        { id: 'custom', type: 'custom', custom: { name: 'activate_tools', input: 'x' } },
      ]),
      names,
    );
    expect(calls.map((c) => ('error' in c ? c.id : undefined))).toEqual([
      'bad-json',
      'array',
      'unknown',
      'custom',
    ]);
    const [badJson, array, unknown, custom] = calls.map((c) => ('error' in c ? c.error : ''));
    expect(badJson).toMatch(/not valid JSON .*Send them again as one JSON object/);
    expect(array).toContain('must be a JSON object, not an array');
    expect(unknown).toContain('no tool named "mcp__fs__delete_all"');
    expect(custom).toContain('custom tool');
  });

  it('answers with text-only tool messages: media as references, errors marked', () => {
    const message = toOpenAIChatToolMessage('c1', imageOutput()) satisfies ChatCompletionToolMessageParam;
    expect(message).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content:
        'Chart ready.\n[image/png, 8 B, not shown]\n[image/svg+xml, 6 B, not shown]\n[report](https://x.test/report)',
    });
    expect(toOpenAIChatToolMessage('c2', jsonOutput()).content).toBe('{"ok":false}');
    expect(toOpenAIChatToolMessage('c3', jsonOutput({ isError: true })).content).toBe(
      'Tool error: {"ok":false}',
    );
    expect(toOpenAIChatToolMessage('c4', errorOutput('denied by policy')).content).toBe(
      'Tool error: denied by policy',
    );
  });
});
