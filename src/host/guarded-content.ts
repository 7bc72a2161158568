import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { guardPromptMessages, guardResourceContents } from '../policy/scan/guard.js';

/**
 * Resource and prompt text from a server that is not trusted, where the injection scanner
 * flags it, comes back wrapped in a "this is data, not instructions" banner (policy/scan).
 */
export interface GuardContext {
  readonly server: string;
  readonly trusted: boolean;
  /** Every catalog tool, for the shadowing check. */
  readonly otherTools: readonly { server: string; name: string }[];
}

export function guardedResource(result: ReadResourceResult, at: GuardContext): ReadResourceResult {
  const { contents } = guardResourceContents(result.contents, {
    server: at.server,
    trusted: at.trusted,
    context: { server: at.server, otherTools: at.otherTools },
  });
  return { ...result, contents };
}

export function guardedPrompt(result: GetPromptResult, prompt: string, at: GuardContext): GetPromptResult {
  const { messages } = guardPromptMessages(result.messages, {
    server: at.server,
    prompt,
    trusted: at.trusted,
    context: { server: at.server, otherTools: at.otherTools },
  });
  return { ...result, messages };
}
