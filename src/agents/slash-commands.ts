import { SwitchboardError } from '../core/errors.js';

/**
 * Prompts as slash commands: `/mcp__<server>__<prompt> {"arg": "value"}` in a chat box
 * becomes that prompt's messages. Parsing is pure; the session resolves and runs it.
 */

export interface SlashCommand {
  /** `mcp__<server>__<prompt>`, the name without the slash. */
  readonly name: string;
  readonly args: Record<string, unknown>;
}

const COMMAND = /^\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/;

/**
 * The command in `line`, or undefined when the line is not an MCP slash command (so a chat
 * front-end can pass other input on). Arguments that are not a JSON object are an
 * INVALID_ARGUMENT error that shows the expected form.
 */
export function parseSlashCommand(line: string): SlashCommand | undefined {
  const match = COMMAND.exec(line.trim());
  if (!match) return undefined;
  const name = match[1]!;
  const rest = match[2]?.trim();
  if (!rest) return { name, args: {} };
  let args: unknown;
  try {
    args = JSON.parse(rest);
  } catch {
    args = undefined;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new SwitchboardError(
      'INVALID_ARGUMENT',
      `The arguments of /${name} must be one JSON object, like /${name} {"topic": "rust"}.`,
      { details: { command: name } },
    );
  }
  return { name, args: args as Record<string, unknown> };
}
