import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../cli-context.js';
import { didYouMean } from '../help/suggest.js';

/**
 * `node:util` `parseArgs` for a verb's own options (strict, positionals allowed), with its
 * mistakes (an unknown option, a missing value) turned into a UsageError, so they exit 2 with
 * the message and not 1 as an unexpected error. An unknown option comes with the verb's
 * nearest ones ("did you mean"); `--help` never reaches here (main answers it).
 */
export function parseVerbArgs<const O extends NonNullable<ParseArgsConfig['options']>>(
  args: readonly string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  const unknown = unknownOption(args, options);
  if (unknown !== undefined) {
    const names = Object.entries(options).flatMap(([long, o]) => [
      `--${long}`,
      ...(o.short === undefined ? [] : [`-${o.short}`]),
    ]);
    throw new UsageError(
      `Unknown option '${unknown}'.${didYouMean(unknown, names) || (names.length > 0 ? ` It takes: ${names.join(', ')}.` : ' It takes no options.')}`,
    );
  }
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The first option in `args` that `options` does not declare, read as parseArgs reads them:
 * up to `--`, `--name` or `--name=value`, `-x` (or `-xyz`, several short flags), skipping the
 * value that follows an option declared as a string.
 */
export function unknownOption(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): string | undefined {
  const shorts = new Map(
    Object.entries(options).flatMap(([long, o]) => (o.short === undefined ? [] : [[o.short, long] as const])),
  );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    if (arg === '-' || !arg.startsWith('-')) continue;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=', 1)[0]!;
      const declared = Object.hasOwn(options, name) ? options[name] : undefined;
      if (declared === undefined) return `--${name}`;
      if (declared.type === 'string' && !arg.includes('=')) i++;
      continue;
    }
    const first = shorts.get(arg[1]!);
    if (first === undefined) return `-${arg[1]}`;
    // `-n 5` takes the next word as its value; `-n5` carries it.
    if (options[first]!.type === 'string' && arg.length === 2) i++;
  }
  return undefined;
}

function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
