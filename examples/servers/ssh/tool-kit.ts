/**
 * What every SSH tool shares: `respond` runs a call, reads this round's elicitation answers,
 * turns a question the call needs answered into an input request, and an `SshError` into an
 * error result whose text starts with its code.
 */
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type Answers, InputNeeded, type Question } from './asks.js';
import { SshError } from './errors.js';

export type Result = CallToolResult | InputRequiredResult;

export const text = (value: string, structured?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(structured !== undefined && { structuredContent: structured }),
});

function answersOf(ctx: ServerContext): Answers {
  return (key) => {
    const view = inputResponse(ctx.mcpReq.inputResponses, key);
    if (view.kind !== 'elicit') return { kind: 'missing' };
    if (view.action !== 'accept') return { kind: 'declined' };
    return { kind: 'accepted', content: view.content ?? {} };
  };
}

function askFor(question: Question): InputRequiredResult {
  const { field } = question;
  // One field per question. A secret's name ("password", "passphrase") is what marks it for
  // masking: the elicitation schema of MCP has no `format: "password"` (2025-06-18, "Requested
  // Schema" allows email, uri, date, date-time only).
  const property =
    field.kind === 'secret'
      ? { type: 'string' as const, title: field.title, minLength: 1 }
      : { type: 'boolean' as const, title: field.title, default: false };
  return inputRequired({
    inputRequests: {
      [question.key]: inputRequired.elicit({
        message: question.message,
        requestedSchema: { type: 'object', properties: { [field.name]: property }, required: [field.name] },
      }),
    },
  });
}

export async function respond(
  ctx: ServerContext,
  run: (answers: Answers) => Promise<CallToolResult>,
): Promise<Result> {
  try {
    return await run(answersOf(ctx));
  } catch (error) {
    if (error instanceof InputNeeded) return askFor(error.question);
    if (error instanceof SshError)
      return { ...text(`${error.code}: ${error.message}`, { error: error.code }), isError: true };
    throw error;
  }
}

export const Target = z.string().trim().min(1).max(320).describe('An alias name, or user@host[:port].');
