import type { VerbHelp } from '../cli-context.js';

/**
 * The texts `switchboard --help` and `switchboard help <verb>` print, built from the verbs'
 * summaries and examples (which live beside each verb's loader, so no verb's module is read to
 * show them). Pure.
 */

/** A heading and the verbs under it, in the order the global usage lists them. */
export interface VerbGroup {
  readonly title: string;
  readonly verbs: Readonly<Record<string, VerbHelp>>;
}

/** The global options, as the usage lists them; `names` are what the parser accepts. */
export const GLOBAL_OPTIONS: readonly { readonly names: readonly string[]; readonly text: string }[] = [
  {
    names: ['--config'],
    text: '--config PATH     the project config: a directory holding switchboard.json, or the file',
  },
  { names: ['--data-dir'], text: '--data-dir DIR    store, logs and tokens (default ~/.switchboard)' },
  { names: ['--json'], text: '--json            machine-readable output on stdout' },
  { names: ['--quiet', '-q'], text: '-q, --quiet       no progress or notes on stderr' },
  { names: ['--verbose', '-v'], text: '-v, --verbose     more detail on stderr' },
  {
    names: ['--local'],
    text: '--local           start the servers here, not via a gateway running on the data dir',
  },
  { names: ['--help', '-h'], text: '-h, --help        this text ("switchboard help <verb>" for one verb)' },
  { names: ['--version', '-V'], text: '-V, --version     the version' },
];

/** The first line of every usage text. */
export const USAGE_LINE = 'usage: switchboard [global options] <verb> [arguments]';

/** `switchboard --help`: every verb with what it does in one line, the global options, where to read more. */
export function globalUsage(groups: readonly VerbGroup[]): string {
  const width = Math.max(...groups.flatMap((g) => Object.keys(g.verbs).map((name) => name.length)));
  const lines = [USAGE_LINE, ''];
  for (const group of groups) {
    lines.push(`${group.title}:`);
    for (const [name, verb] of Object.entries(group.verbs))
      lines.push(`  ${name.padEnd(width)}  ${verb.summary}`);
    lines.push('');
  }
  lines.push('Global options (before the verb):', ...GLOBAL_OPTIONS.map((o) => `  ${o.text}`), '');
  lines.push(
    'While "serve" or "start" runs on the data dir (and --config), list, tools and call ask it: its',
    'servers are already connected. A note on stderr says so; --local starts the servers here instead.',
    '',
  );
  lines.push(
    'Exit codes: 0 ok, 1 the tool returned an error, 2 usage, 3 connection or auth, 4 denied by policy.',
  );
  lines.push('Run "switchboard help <verb>" (or "switchboard <verb> --help") for its options and examples.');
  return lines.join('\n');
}

/** `switchboard help <verb>`: its usage text, then its examples. */
export function verbUsage(help: VerbHelp, usage: string): string {
  const examples = help.examples.map((e) => `  ${e}`);
  return [usage, '', examples.length === 1 ? 'Example:' : 'Examples:', ...examples].join('\n');
}
