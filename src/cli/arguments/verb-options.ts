import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../cli-context.js';

/**
 * `node:util` `parseArgs` for a verb's own options (strict, positionals allowed), with its
 * mistakes (an unknown option, a missing value) turned into a UsageError, so they exit 2 with
 * the message and not 1 as an unexpected error.
 */
export function parseVerbArgs<const O extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(error.message);
    throw error;
  }
}

function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
