/**
 * `demo-elicitation`: an MCP server whose tool asks the person at the client for input while
 * it runs (MCP elicitation, form mode): first a confirmation, then an API key — a field whose
 * name marks it secret, so a client masks it and keeps it out of logs. The key is used once
 * (its length and last four characters are reported back) and never stored or sent anywhere.
 *
 * The questions are asked with `inputRequired(...)`, so one handler serves both protocol eras:
 * on 2026-07-28 each question is an `input_required` round the client answers and retries; on a
 * 2025 connection the SDK sends real `elicitation/create` requests. The state between the
 * rounds (that the person confirmed) travels through the client, so it is signed
 * (`createRequestStateCodec`) and checked on the way back.
 *
 *   node --import tsx examples/servers/demo-elicitation.ts     # speaks MCP on stdin/stdout
 */
import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

/** What the second and later rounds carry: the person said yes to connecting `service`. */
interface Confirmed {
  readonly confirmed: true;
  readonly service: string;
}

// One process serves every round of a call over stdio, so a per-process key is enough.
const codec = createRequestStateCodec<Confirmed>({
  key: randomBytes(32),
  ttlSeconds: 600,
  bind: (ctx) => ctx.mcpReq.method,
});

const MIN_KEY_LENGTH = 8;

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

function askConfirmation(service: string): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        message: `Connect the demo account "${service}"? Nothing real is connected.`,
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: { type: 'boolean', title: 'Connect', description: 'Yes, connect it.', default: false },
          },
          required: ['confirm'],
        },
      }),
    },
  });
}

async function askKey(service: string, ctx: ServerContext): Promise<InputRequiredResult> {
  return inputRequired({
    inputRequests: {
      credentials: inputRequired.elicit({
        message: `The API key for "${service}" (used once, never stored).`,
        requestedSchema: {
          type: 'object',
          properties: {
            api_key: {
              type: 'string',
              title: 'API key',
              description: `At least ${MIN_KEY_LENGTH} characters.`,
              minLength: MIN_KEY_LENGTH,
            },
          },
          required: ['api_key'],
        },
      }),
    },
    requestState: await codec.mint({ confirmed: true, service }, ctx),
  });
}

/** Round 1 asks for the confirmation; round 2 (confirmed) for the key; round 3 uses it. */
async function connectAccount(
  service: string,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const responses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState<Confirmed>();
  if (state === undefined) {
    const answer = inputResponse(responses, 'confirm');
    if (answer.kind === 'missing') return askConfirmation(service);
    if (answer.kind !== 'elicit' || answer.action !== 'accept' || answer.content?.confirm !== true)
      return text(`Not connected: "${service}" was not confirmed.`);
    return askKey(service, ctx);
  }
  if (state.service !== service)
    return { ...text('The answers belong to another call; call again.'), isError: true };
  const answer = inputResponse(responses, 'credentials');
  if (answer.kind === 'missing') return askKey(service, ctx);
  if (answer.kind !== 'elicit' || answer.action !== 'accept')
    return text(`Not connected: no API key was given for "${service}".`);
  const key = answer.content?.api_key;
  if (typeof key !== 'string' || key.length < MIN_KEY_LENGTH)
    return {
      ...text(`The API key must be at least ${MIN_KEY_LENGTH} characters; call again.`),
      isError: true,
    };
  return text(
    `Connected "${service}" with the key …${key.slice(-4)} (${key.length} characters). ` +
      'The demo used it once and kept nothing.',
  );
}

function createElicitationServer(): McpServer {
  const server = new McpServer(
    { name: 'demo-elicitation', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      instructions: 'Asks the person for a confirmation and an API key while a call runs (elicitation).',
      requestState: { verify: codec.verify },
    },
  );
  server.registerTool(
    'connect_account',
    {
      title: 'Connect an account',
      description:
        'Connects a pretend account: asks you to confirm, then for its API key (a secret field). Nothing is stored.',
      inputSchema: z.object({ service: z.string().trim().min(1).max(80).describe('e.g. "acme-crm"') }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    ({ service }, ctx) => connectAccount(service, ctx),
  );
  return server;
}

serveStdio(createElicitationServer);
