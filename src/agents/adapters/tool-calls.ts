import type { ParsedToolCall } from './agent-tool.js';
import type { ProviderNames } from './provider-names.js';

/**
 * Tool calls as a model makes them, mapped back to the catalog. Each provider's parser finds
 * the calls in its own message shape and hands name and arguments to `resolveToolCall`.
 */

/**
 * Maps a call's name back to the catalog and checks its arguments. `input` is either the
 * raw JSON text (OpenAI) or an already parsed value (Anthropic, AI SDK). An empty text means
 * no arguments. Never throws: a bad call becomes an error entry the model can act on.
 */
export function resolveToolCall(
  names: ProviderNames,
  id: string,
  providerName: string,
  input: { readonly json: string } | { readonly value: unknown },
): ParsedToolCall {
  const name = names.toCatalog(providerName);
  if (name === undefined) {
    return {
      id,
      providerName,
      error: `There is no tool named "${providerName}" in this conversation; call one of the tools offered.`,
    };
  }
  let args: unknown;
  if ('json' in input) {
    if (input.json.trim() === '') args = {};
    else {
      try {
        args = JSON.parse(input.json);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return {
          id,
          providerName,
          error: `The arguments for "${providerName}" are not valid JSON (${reason}). Send them again as one JSON object.`,
        };
      }
    }
  } else {
    args = input.value === undefined ? {} : input.value;
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      id,
      providerName,
      error: `The arguments for "${providerName}" must be a JSON object, not ${describeJsonType(args)}. Send them again as one JSON object.`,
    };
  }
  return { id, name, args: args as Record<string, unknown> };
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
