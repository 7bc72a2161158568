import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { jsonSchema, type ToolSet } from 'ai';
import type {
  ChatCompletionMessage,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { ResponseInputItem, ResponseOutputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSession } from '../../src/agents/session.js';
import { ToolRound } from '../../src/agents/tool-rounds.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import type { InboxItem } from '../../src/host/inbox/inbox.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * A provider tool call end to end, for each provider: the model's call (typed with the
 * provider SDK's own types) → policy → the Inbox, where a person approves → the host call on a
 * real server → the provider's tool-result shape, accepted by the provider SDK's types.
 */
let dataDir: string;
let host: Host;
let session: AgentSession;
const approvals: InboxItem[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-rounds-'));
  host = await Host.create({
    dataDir,
    governance: { mode: 'auto-edit' },
    servers: [
      normalizeServerEntry({
        name: 'kitchen',
        command: process.execPath,
        args: [kitchenSinkBin],
        deferral: 'eager',
      }),
    ],
  });
  approvals.length = 0;
  // A person at the inbox who approves every call once.
  host.inbox.on('added', (item) => {
    approvals.push(item);
    host.inbox.resolve(item.id, 'accept');
  });
  await catalogHas(host, 'mcp__kitchen__image');
  session = AgentSession.open(host, 'rounds');
});

afterEach(async () => {
  await host.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('ToolRound', () => {
  it('runs OpenAI Chat Completions tool calls and answers with tool messages', async () => {
    const round = await ToolRound.of(session);
    expect(round.openAIChatTools().map((t) => t.function.name)).toContain('mcp__kitchen__add');
    const message: ChatCompletionMessage = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'mcp__kitchen__add', arguments: '{"a":2,"b":40}' } },
        { id: 'c2', type: 'function', function: { name: 'mcp__kitchen__add', arguments: '{"a":' } },
        { id: 'c3', type: 'function', function: { name: 'mcp__nowhere__x', arguments: '{}' } },
      ],
    };
    const replies = (await round.runOpenAIChat(message)) satisfies ChatCompletionToolMessageParam[];
    expect(replies.map((r) => r.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(replies[0]!.content).toBe('{"sum":42}');
    expect(replies[1]!.content).toMatch(/^Tool error: .*not valid JSON/);
    expect(replies[2]!.content).toMatch(/^Tool error: .*no tool named "mcp__nowhere__x"/);
    expect(approvals.map((a) => `${a.tool} ${a.preview}`)).toEqual(['add {"a":2,"b":40}']);
  });

  it('runs OpenAI Responses function calls, images inline', async () => {
    const round = await ToolRound.of(session);
    const items: ResponseOutputItem[] = [
      {
        type: 'function_call',
        call_id: 'r1',
        name: 'mcp__kitchen__image',
        arguments: '{}',
        id: 'fc_1',
        status: 'completed',
      },
    ];
    const outputs = (await round.runOpenAIResponses(items)) satisfies ResponseInputItem.FunctionCallOutput[];
    expect(outputs[0]!.call_id).toBe('r1');
    const parts = outputs[0]!.output as { type: string; image_url?: string; text?: string }[];
    expect(parts.map((p) => p.type)).toEqual(['input_text', 'input_image']);
    expect(parts[1]!.image_url).toMatch(/^data:image\/png;base64,/);
  });

  it('runs Anthropic tool_use blocks and answers with tool_result blocks', async () => {
    const round = await ToolRound.of(session);
    expect(round.anthropicTools().find((t) => t.name === 'mcp__kitchen__echo')?.input_schema.type).toBe(
      'object',
    );
    const content: ContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      { type: 'tool_use', id: 'tu1', name: 'mcp__kitchen__image', input: {}, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'tu2', name: 'mcp__kitchen__fail', input: {}, caller: { type: 'direct' } },
    ];
    const results = (await round.runAnthropic(content)) satisfies ToolResultBlockParam[];
    expect(results[0]).toMatchObject({ tool_use_id: 'tu1', is_error: false });
    expect((results[0]!.content as { type: string }[]).map((c) => c.type)).toEqual(['text', 'image']);
    expect(results[1]).toMatchObject({ tool_use_id: 'tu2', is_error: true });
  });

  it('hands the AI SDK a tool set that runs through the same path', async () => {
    const round = await ToolRound.of(session);
    const tools = round.vercelTools(jsonSchema) satisfies ToolSet;
    const echo = tools.mcp__kitchen__echo!;
    const output = await echo.execute({ text: 'via the AI SDK' }, { toolCallId: 'v1' });
    expect(output).toEqual({ isError: false, content: [{ type: 'text', text: 'via the AI SDK' }] });
    expect(approvals.map((a) => a.tool)).toEqual(['echo']);
  });

  it('shows tools loaded in one round from the next round on', async () => {
    await host.register({ name: 'later', command: process.execPath, args: [kitchenSinkBin] }, 'test');
    await catalogHas(host, 'mcp__later__echo');
    const first = await ToolRound.of(session);
    expect(first.openAIChatTools().some((t) => t.function.name === 'mcp__later__echo')).toBe(false);
    await first.runOpenAIChat({
      tool_calls: [
        {
          id: 'a1',
          type: 'function',
          function: { name: 'activate_tools', arguments: '{"groups":["later"]}' },
        },
      ],
    });
    const second = await ToolRound.of(session);
    expect(second.openAIChatTools().some((t) => t.function.name === 'mcp__later__echo')).toBe(true);
  });
});
