import { SwitchboardError } from '../core/errors.js';
import { readLocalToken } from '../gateway/http/auth/local-token.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import {
  answerInboxItem,
  type InboxAnswerRequest,
  type InboxItemJson,
  inboxSocketPath,
  listInboxItems,
} from './inbox-endpoint.js';
import { printable } from './output/style.js';
import { renderTable } from './output/table.js';

/**
 * `switchboard inbox [approve <id> [--always] | decline <id>]`: the approvals and elicitations
 * waiting in a running Switchboard process (the gateway), through its inbox endpoint
 * (inbox-endpoint.ts). An id may be shortened to any prefix that names one item.
 */
export const INBOX_USAGE = `usage: switchboard inbox
       switchboard inbox approve <id> [--always] [--content JSON]
       switchboard inbox decline <id>
  Lists what waits for a person in the running gateway (same --data-dir): tool calls that
  policy asks about, and servers' questions (elicitations). approve lets a call run (--always:
  for the rest of its session) or accepts a question (--content: the form's answers as JSON);
  decline refuses. An id may be shortened to a unique prefix.`;

export async function inboxCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    always: { type: 'boolean', default: false },
    content: { type: 'string' },
  });
  const [action, id, ...extra] = positionals;
  const path = inboxSocketPath(ctx.dataDir);
  const token = await readLocalToken(ctx.dataDir);
  if (token === undefined) {
    throw new SwitchboardError(
      'NOT_CONNECTED',
      `No Switchboard gateway has run with the data dir ${ctx.dataDir}${dataDirWhy(ctx)} (it has no local token). ` +
        'Approvals wait in the gateway that asked for them: pass its data dir with --data-dir DIR (the "Data" ' +
        'line "switchboard start" prints; a project\'s .switchboard/ folder is found from inside the project), ' +
        'or start the gateway with this one.',
      { details: { dataDir: ctx.dataDir } },
    );
  }
  const at = { path, token };
  if (action === undefined || action === 'list') {
    if (id !== undefined) throw new UsageError('inbox list takes no arguments.');
    printItems(ctx, await listInboxItems(at));
    return EXIT.ok;
  }
  if (action !== 'approve' && action !== 'decline')
    throw new UsageError(`inbox takes list, approve or decline, not "${action}".`);
  if (id === undefined || extra.length > 0)
    throw new UsageError(`inbox ${action} takes exactly one item id.`);
  if (action === 'decline' && (values.always || values.content !== undefined))
    throw new UsageError('--always and --content go with approve.');
  const item = pick(await listInboxItems(at), id);
  const answer: InboxAnswerRequest = {
    action: action === 'approve' ? 'accept' : 'decline',
    ...(values.always && { always: true }),
    ...(values.content !== undefined && { content: parseContent(values.content) }),
  };
  await answerInboxItem(at, item.id, answer);
  if (ctx.json)
    ctx.out(JSON.stringify({ id: item.id, action: answer.action, always: answer.always === true }));
  else if (!ctx.quiet) {
    const what =
      item.kind === 'approval'
        ? `the call of ${item.server}/${item.tool ?? '?'}`
        : `the question of ${item.server}`;
    ctx.err(
      `${action === 'approve' ? 'Approved' : 'Declined'} ${what}${answer.always ? ' (always, this session)' : ''}.`,
    );
  }
  return EXIT.ok;
}

/** Why this data dir was looked in, for the message when nothing is there. */
function dataDirWhy(ctx: CliContext): string {
  if (ctx.dataDirFrom === 'home') return ' (the default: no .switchboard/ folder in this project)';
  if (ctx.dataDirFrom === 'project') return " (this project's)";
  return '';
}

/** The one item whose id starts with `prefix`. */
export function pick(items: readonly InboxItemJson[], prefix: string): InboxItemJson {
  const exact = items.find((i) => i.id === prefix);
  if (exact) return exact;
  const matches = items.filter((i) => i.id.startsWith(prefix));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new SwitchboardError(
      'NOT_FOUND',
      `No inbox item "${prefix}" is waiting: it was answered, expired or never existed. Run "switchboard inbox" to see what waits.`,
      { details: { id: prefix } },
    );
  }
  throw new SwitchboardError(
    'INVALID_ARGUMENT',
    `"${prefix}" starts ${matches.length} item ids; give more of the id.`,
    { details: { id: prefix } },
  );
}

function parseContent(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--content takes a JSON object, e.g. --content \'{"name":"Ada"}\'.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--content takes a JSON object, e.g. --content \'{"name":"Ada"}\'.');
  return value as Record<string, unknown>;
}

function printItems(ctx: CliContext, items: readonly InboxItemJson[]): void {
  if (ctx.json) {
    ctx.out(JSON.stringify({ items }));
    return;
  }
  if (items.length === 0) {
    if (!ctx.quiet) ctx.err('Nothing waits in the inbox.');
    return;
  }
  const now = Date.now();
  const rows = [
    ['ID', 'KIND', 'SERVER', 'TOOL', 'EXPIRES', 'WHAT'],
    ...items.map((i) => [
      i.id.slice(0, 8),
      i.kind,
      i.server,
      i.tool ?? '-',
      `${Math.max(0, Math.round((Date.parse(i.deadline) - now) / 1000))}s`,
      printable(
        i.kind === 'approval' ? `${i.reason ? `${i.reason}: ` : ''}${i.preview}` : (i.url ?? i.preview),
        {
          singleLine: true,
        },
      ),
    ]),
  ];
  for (const line of renderTable(rows, { maxWidth: process.stdout.columns ?? 120 })) ctx.out(line);
  if (!ctx.quiet)
    ctx.err('Answer with: switchboard inbox approve <id> [--always]  |  switchboard inbox decline <id>');
}
