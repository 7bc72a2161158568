import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../examples/agent-openai.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { Host } from '../../src/host/host.js';
import { kitchenSinkBin } from '../fixtures/paths.js';
import { catalogHas } from '../helpers/wait.js';

/**
 * The example agent loop against a scripted OpenAI-compatible endpoint on 127.0.0.1 (the
 * real `openai` client talks to it) and a real MCP server: the model loads a server, calls
 * its tool, and answers with what the tool returned. The endpoint checks what it is sent.
 */

interface ChatRequest {
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function completion(message: Record<string, unknown>) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: null, ...message } }],
  };
}

function toolCall(id: string, name: string, args: unknown) {
  return { tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] };
}

/** Round by round: what the model answers, given what it was sent. */
const script: ((request: ChatRequest) => Record<string, unknown>)[] = [
  () => toolCall('call-1', 'activate_tools', { groups: ['kitchen'] }),
  (request) => {
    const echo = request.tools?.find((t) => t.function.name === 'mcp__kitchen__echo');
    if (!echo) throw new Error('round 2 should offer the tools activated in round 1');
    return toolCall('call-2', 'mcp__kitchen__echo', { text: 'the tide is high' });
  },
  (request) => {
    const answer = request.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call-2');
    return { content: `The tool said: ${answer?.content}` };
  },
];

let dataDir: string;
let host: Host | undefined;
let endpoint: Server | undefined;
const requests: ChatRequest[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sb-example-'));
  requests.length = 0;
  endpoint = createServer(async (req, res) => {
    const request = JSON.parse(await body(req)) as ChatRequest;
    requests.push(request);
    const step = script[requests.length - 1];
    try {
      if (!step) throw new Error('the agent sent more requests than the script has');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(step(request))));
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await new Promise<void>((resolve) => endpoint!.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await host?.close();
  host = undefined;
  await new Promise((resolve) => endpoint?.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('examples/agent-openai.ts', () => {
  it('loads a server, calls its tool and answers with the result', async () => {
    host = await Host.create({
      dataDir,
      governance: { mode: 'full-auto' },
      servers: [
        normalizeServerEntry({
          name: 'kitchen',
          command: process.execPath,
          args: [kitchenSinkBin],
          description: 'Test kitchen',
        }),
      ],
    });
    await catalogHas(host, 'mcp__kitchen__echo');
    const { port } = endpoint!.address() as AddressInfo;
    const calls: string[] = [];
    const answer = await runAgent({
      host,
      client: new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'test', maxRetries: 0 }),
      model: 'scripted',
      session: 'example',
      prompt: 'Echo "the tide is high".',
      onToolCall: (name) => calls.push(name),
    });
    expect(answer).toBe('The tool said: the tide is high');
    expect(calls).toEqual(['activate_tools', 'mcp__kitchen__echo']);
    // Round 1 offered only the meta-tools; the system prompt listed the server as available.
    expect(requests[0]!.tools!.map((t) => t.function.name)).toEqual([
      'activate_tools',
      'search_tools',
      'mcp_content',
    ]);
    expect(requests[0]!.messages[0]!.content).toMatch(
      /Available[^\n]*\n- kitchen \(\d+ tools\) — Test kitchen/,
    );
    expect(requests[1]!.messages[0]!.content).toMatch(/Loaded[^\n]*\n- kitchen/);
    expect(requests).toHaveLength(3);
  });
});
