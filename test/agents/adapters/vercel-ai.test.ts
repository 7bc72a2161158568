import { generateText, jsonSchema, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { ProviderNames } from '../../../src/agents/adapters/provider-names.js';
import type { AgentToolOutput } from '../../../src/agents/adapters/tool-output.js';
import {
  toVercelModelOutput,
  toVercelTools,
  type VercelToolContext,
} from '../../../src/agents/adapters/vercel-ai.js';
import { imageOutput, jsonOutput, LONG_NAME, PNG_BYTES, sampleTools } from './sample-tools.js';

const names = new ProviderNames(sampleTools.map((t) => t.name));

interface Call {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly context: VercelToolContext;
}

function recorder(output: AgentToolOutput) {
  const calls: Call[] = [];
  const execute = async (name: string, args: Record<string, unknown>, context: VercelToolContext) => {
    calls.push({ name, args, context });
    return output;
  };
  return { calls, execute };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe('Vercel AI SDK adapter', () => {
  it('builds a ToolSet keyed by provider-safe names with the real jsonSchema', async () => {
    const { calls, execute } = recorder(jsonOutput());
    const tools = toVercelTools(sampleTools, { jsonSchema, execute }) satisfies ToolSet;
    expect(Object.keys(tools)).toEqual(['mcp__fs__read_file', names.toProvider(LONG_NAME), 'activate_tools']);
    const readFile = tools.mcp__fs__read_file!;
    expect(readFile.description).toBe('Read a file. Only works within allowed directories.');
    expect(await readFile.inputSchema.jsonSchema).toEqual({
      type: 'object',
      properties: { path: { type: 'string', description: 'File to read' } },
      required: ['path'],
    });

    const controller = new AbortController();
    const long = tools[names.toProvider(LONG_NAME)]!;
    const stored = await long.execute(
      { quarter: 'Q3' },
      { toolCallId: 't1', abortSignal: controller.signal },
    );
    expect(calls).toEqual([
      {
        name: LONG_NAME,
        args: { quarter: 'Q3' },
        context: { toolCallId: 't1', abortSignal: controller.signal },
      },
    ]);
    expect(stored).toEqual({ isError: false, content: [{ type: 'text', text: '{"ok":false}' }] });
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
    expect(long.toModelOutput({ output: stored })).toEqual({ type: 'text', value: '{"ok":false}' });
  });

  it('answers arguments that are not an object without running the call', async () => {
    const { calls, execute } = recorder(jsonOutput());
    const tools = toVercelTools(sampleTools, { jsonSchema, execute });
    const stored = await tools.activate_tools!.execute(['x'], { toolCallId: 't2' });
    expect(calls).toEqual([]);
    expect(stored.isError).toBe(true);
    expect(tools.activate_tools!.toModelOutput({ output: stored })).toMatchObject({ type: 'error-text' });
  });

  it('maps outputs to the model: images as image-data, errors as error text', () => {
    expect(
      toVercelModelOutput({
        isError: false,
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
      }),
    ).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'a' },
        { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
      ],
    });
    expect(toVercelModelOutput({ isError: true, content: [{ type: 'text', text: 'denied' }] })).toEqual({
      type: 'error-text',
      value: 'denied',
    });
    expect(toVercelModelOutput({ unexpected: 1 })).toEqual({ type: 'text', value: '{"unexpected":1}' });
  });

  it('runs inside generateText: the model sees our schema, calls by provider name, gets the image back', async () => {
    const provider = names.toProvider(LONG_NAME);
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'call-1', toolName: provider, input: '{"quarter":"Q3"}' },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'Done.' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const { calls, execute } = recorder(imageOutput());
    const result = await generateText({
      model,
      tools: toVercelTools(sampleTools, { jsonSchema, execute }),
      prompt: 'Export the report.',
      stopWhen: stepCountIs(2),
    });
    expect(result.text).toBe('Done.');
    expect(calls.map((c) => [c.name, c.args, c.context.toolCallId])).toEqual([
      [LONG_NAME, { quarter: 'Q3' }, 'call-1'],
    ]);

    const offered = model.doGenerateCalls[0]?.tools ?? [];
    expect(offered.map((t) => t.name)).toEqual(['mcp__fs__read_file', provider, 'activate_tools']);
    const second = model.doGenerateCalls[1]?.prompt ?? [];
    const toolMessage = second.find((m) => m.role === 'tool');
    const part = toolMessage?.role === 'tool' ? toolMessage.content[0] : undefined;
    expect(part).toMatchObject({
      type: 'tool-result',
      toolCallId: 'call-1',
      toolName: provider,
      output: {
        type: 'content',
        value: [
          { type: 'text', text: 'Chart ready.' },
          { type: 'image-data', data: PNG_BYTES.toString('base64'), mediaType: 'image/png' },
          { type: 'text', text: '[image/svg+xml, 6 B, not shown]\n[report](https://x.test/report)' },
        ],
      },
    });
  });

  it('lets a thrown execute become the SDK tool error the model reads', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: 'tool-call', toolCallId: 'c', toolName: 'mcp__fs__read_file', input: '{"path":"x"}' },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'ok' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const tools = toVercelTools(sampleTools, {
      jsonSchema,
      execute: async () => {
        throw new Error('approval denied');
      },
    });
    await generateText({ model, tools, prompt: 'read x', stopWhen: stepCountIs(2) });
    const toolMessage = model.doGenerateCalls[1]?.prompt.find((m) => m.role === 'tool');
    const part = toolMessage?.role === 'tool' ? toolMessage.content[0] : undefined;
    expect(part).toMatchObject({
      type: 'tool-result',
      output: { type: 'error-text', value: 'approval denied' },
    });
  });
});
