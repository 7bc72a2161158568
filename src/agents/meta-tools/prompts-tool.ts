import type { CallToolResult, GetPromptResult, Prompt } from '@modelcontextprotocol/client';
import { describeError } from '../../core/errors.js';
import { type MetaContext, pickServer } from './context.js';
import { CONTENT_OUTPUT_CAP, cutNote, cutToBytes, errorOutcome, jsonOutcome, stringArg } from './outcome.js';

/**
 * `mcp_prompts`: list the prompts of the servers an agent may see, or get one prompt's
 * messages. Required arguments are checked before the server is asked, so the model learns
 * which are missing in one step. What a get returns is capped like a resource read (256 KiB
 * of text), with a note saying what was cut.
 */

export async function runPromptsTool(
  context: MetaContext,
  args: Record<string, unknown>,
  options: { readonly capBytes?: number } = {},
): Promise<CallToolResult> {
  const visible = new Set(context.visibleServers());
  const named = stringArg(args, 'server');
  const prompts = context.host.catalog().prompts.filter((p) => visible.has(p.server));
  switch (args.action) {
    case 'list':
      return jsonOutcome({
        prompts: prompts
          .filter((p) => named === undefined || p.server === named)
          .map(({ server, item }) => ({
            server,
            name: item.name,
            ...(item.description !== undefined && { description: item.description }),
            arguments: (item.arguments ?? []).map((a) => `${a.name}${a.required ? '*' : '?'}`).join(', '),
          })),
      });
    case 'get': {
      const name = stringArg(args, 'name');
      if (!name) return errorOutcome('"name" is required to get a prompt; list prompts to find one.');
      const offering = prompts.filter((p) => p.item.name === name);
      const pick = pickServer(
        context,
        named,
        offering.map((p) => p.server),
      );
      if ('error' in pick) return errorOutcome(pick.error);
      const prompt = offering.find((p) => p.server === pick.server)?.item;
      if (!prompt) return errorOutcome(`Server "${pick.server}" has no prompt "${name}".`);
      const given = promptArguments(args.arguments);
      if ('error' in given) return errorOutcome(given.error);
      const missing = missingArguments(prompt, given.values);
      if (missing.length > 0) {
        return errorOutcome(
          `Prompt "${name}" needs the argument(s) ${missing.join(', ')}; pass them in "arguments".`,
        );
      }
      try {
        const result = await context.host.getPrompt(pick.server, name, given.values, {
          ...(context.signal && { signal: context.signal }),
        });
        const cap = options.capBytes ?? CONTENT_OUTPUT_CAP;
        const { messages, cut } = cappedMessages(messagesOf(result), cap);
        return jsonOutcome({
          server: pick.server,
          prompt: name,
          messages,
          ...(cut > 0 && { note: cutNote(cut, cap) }),
        });
      } catch (error) {
        return errorOutcome(`Getting prompt "${name}" from ${pick.server} failed: ${describeError(error)}`);
      }
    }
    default:
      return errorOutcome('"action" must be "list" or "get".');
  }
}

/** Prompt arguments are strings (MCP `prompts/get`); numbers and booleans are stringified. */
export function promptArguments(raw: unknown): { values: Record<string, string> } | { error: string } {
  if (raw === undefined || raw === null) return { values: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { error: '"arguments" must be an object of strings, like {"topic": "rust"}.' };
  }
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') values[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') values[k] = String(v);
    else return { error: `Argument "${k}" must be a string.` };
  }
  return { values };
}

export function missingArguments(prompt: Prompt, values: Readonly<Record<string, string>>): string[] {
  return (prompt.arguments ?? [])
    .filter((a) => a.required && values[a.name] === undefined)
    .map((a) => a.name);
}

/** Messages with their roles kept; non-text content summarised. */
export function messagesOf(result: GetPromptResult): { role: string; text: string }[] {
  return result.messages.map((m) => ({
    role: m.role,
    text:
      m.content.type === 'text'
        ? m.content.text
        : m.content.type === 'resource' && 'text' in m.content.resource
          ? m.content.resource.text
          : `[${m.content.type} content]`,
  }));
}

/** Messages cut so their text stays under `cap` bytes in all; `cut` says how many were left out. */
export function cappedMessages(
  messages: readonly { role: string; text: string }[],
  cap: number,
): { messages: { role: string; text: string }[]; cut: number } {
  let left = cap;
  let cut = 0;
  const kept: { role: string; text: string }[] = [];
  for (const message of messages) {
    const bytes = Buffer.byteLength(message.text);
    if (bytes <= left) {
      kept.push(message);
      left -= bytes;
      continue;
    }
    const text = cutToBytes(message.text, left);
    cut += bytes - Buffer.byteLength(text);
    left = 0;
    if (text.length > 0) kept.push({ role: message.role, text });
  }
  return { messages: kept, cut };
}
