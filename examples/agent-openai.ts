/**
 * An agent loop on Switchboard, against any OpenAI-compatible Chat Completions endpoint
 * (OpenAI, a local server, a proxy). Each round the model sees the session's current tool
 * set — meta-tools plus whatever it has loaded — and every tool call goes through policy,
 * approvals (asked at this terminal) and the host, then back as `role: 'tool'` messages.
 *
 *   OPENAI_API_KEY=… [OPENAI_BASE_URL=…] [OPENAI_MODEL=gpt-4o-mini] \
 *     npx tsx examples/agent-openai.ts "What is in my notes folder?"
 *
 * In an app, import from the package instead: `mcp-switchboard/agents`, `mcp-switchboard/app`.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MCP_LIST_TAG } from '../src/agents/mcp-list.js';
import { AgentSession } from '../src/agents/session.js';
import { ToolRound } from '../src/agents/tool-rounds.js';
import { createSwitchboard } from '../src/app/switchboard.js';
import type { Host } from '../src/host/host.js';
import { attachTerminalPrompt } from '../src/host/inbox/terminal-prompt.js';

const SYSTEM_PROMPT = `You are a helpful assistant with MCP tools.
${MCP_LIST_TAG}
Load a server's tools with activate_tools before you use them; search_tools finds tools by what they do.`;

export interface AgentOptions {
  readonly host: Host;
  readonly client: OpenAI;
  readonly model: string;
  /** The session id: grants and "always allow" answers are kept under it. */
  readonly session: string;
  readonly prompt: string;
  /** Rounds before the loop gives up (a model can loop on tools). Default 10. */
  readonly maxRounds?: number;
  /** Told of every tool call and its result text, for logging. */
  readonly onToolCall?: (name: string, resultText: string) => void;
}

/** Runs the loop until the model answers without tool calls; returns that answer. */
export async function runAgent(options: AgentOptions): Promise<string> {
  const session = AgentSession.open(options.host, options.session);
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: options.prompt }];
  for (let round = 0; round < (options.maxRounds ?? 10); round++) {
    // Recomputed every round: a server loaded last round is offered now.
    const tools = await ToolRound.of(session);
    const system = await session.systemPrompt(SYSTEM_PROMPT);
    const completion = await options.client.chat.completions.create({
      model: options.model,
      messages: [{ role: 'system', content: system }, ...messages],
      tools: tools.openAIChatTools(),
    });
    const message = completion.choices[0]?.message;
    if (!message) throw new Error('The endpoint answered without a message.');
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    const results = await tools.runOpenAIChat(message);
    for (const [i, result] of results.entries()) {
      const call = message.tool_calls[i];
      options.onToolCall?.(call?.type === 'function' ? call.function.name : '?', result.content);
    }
    messages.push(...results);
  }
  throw new Error(`No answer after ${options.maxRounds ?? 10} rounds; the model kept calling tools.`);
}

async function main(): Promise<void> {
  const prompt = process.argv.slice(2).join(' ');
  if (!prompt) {
    console.error('Usage: npx tsx examples/agent-openai.ts "your question"');
    process.exitCode = 2;
    return;
  }
  const switchboard = await createSwitchboard();
  const detach = attachTerminalPrompt(switchboard.host.inbox, {
    input: process.stdin,
    output: process.stderr,
  });
  try {
    const answer = await runAgent({
      host: switchboard.host,
      client: new OpenAI(),
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      session: 'example-agent',
      prompt,
      onToolCall: (name, text) => console.error(`· ${name} → ${text.slice(0, 200)}`),
    });
    console.log(answer);
  } finally {
    detach();
    await switchboard.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
