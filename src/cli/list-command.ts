import type { ApiServer } from '../gateway/api/api-types.js';
import type { Host, ServerStatus } from '../host/host.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { nothingConfigured, openServers } from './connect-servers.js';
import { type Style, styleFor } from './output/style.js';
import { renderTable } from './output/table.js';
import { askGateway, type RunningGateway, viaGateway } from './running-gateway.js';
import { fixHint, serverStatus } from './server-state.js';

/**
 * `switchboard list` and `switchboard status [server]`: the servers, their state, protocol
 * version and what they offer; a server that is not connected comes with its error and the
 * step that fixes it. `status` adds where each entry came from, its log file and refused
 * tools; `status <server>` connects only that server and also names what it offers.
 */
export const LIST_USAGE = `usage: switchboard list
  Connects every configured server and shows its state, protocol version and how many tools,
  resources and prompts it offers; servers that failed come with the error and what to do.`;

export const STATUS_USAGE = `usage: switchboard status [server]
  Like list, with more per server: transport, the config file it came from, its log file and
  the tools Switchboard refused. With a server name, only that server is connected, its
  tools, resources and prompts are named, and the exit code is 3 unless it connected.`;

/** A server as `list --json` shows it. */
interface ServerRow {
  readonly name: string;
  readonly state: ServerStatus['state'];
  readonly transport: ServerStatus['transport'];
  readonly protocolVersion: string | null;
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
  readonly source: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly hint: string | null;
  /** Lists the server cut short (empty when all are complete). */
  readonly incompleteLists: NonNullable<ServerStatus['incompleteLists']>;
}

export async function listCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 0)
    throw new UsageError(
      `list takes no arguments; for one server use "switchboard status ${positionals[0]}".`,
    );
  const rows = (await viaGateway(ctx, gatewayRows)) ?? (await localRows(ctx));
  if (ctx.json) ctx.out(JSON.stringify({ servers: rows }));
  else printList(ctx, rows, styleFor(process.stdout, ctx.env));
  return EXIT.ok;
}

/** The rows of a running gateway: its API's servers are the host's statuses, hint included. */
async function gatewayRows(gateway: RunningGateway): Promise<ServerRow[]> {
  const { servers } = await askGateway<{ servers: readonly ApiServer[] }>(gateway, 'GET', '/api/servers');
  return servers.map((s) => ({
    name: s.name,
    state: s.state,
    transport: s.transport,
    protocolVersion: s.protocolVersion ?? null,
    tools: s.tools,
    resources: s.resources,
    prompts: s.prompts,
    source: s.source,
    error: s.error ? { code: s.error.code, message: s.error.message } : null,
    hint: s.hint ?? null,
    incompleteLists: s.incompleteLists ?? [],
  }));
}

/** The rows of the servers started here for this command. Nothing configured: nothing started. */
async function localRows(ctx: CliContext): Promise<ServerRow[]> {
  if (nothingConfigured(ctx)) return [];
  const switchboard = await openServers(ctx);
  try {
    return switchboard.host.servers().map((s) => rowOf(switchboard.host, s));
  } finally {
    await switchboard.close();
  }
}

export async function statusCommand(ctx: CliContext): Promise<ExitCode> {
  const { positionals } = parseVerbArgs(ctx.args, {});
  if (positionals.length > 1) throw new UsageError('status takes at most one server name.');
  const name = positionals[0];
  const switchboard = await openServers(ctx, name === undefined ? {} : { only: [name] });
  try {
    const { host } = switchboard;
    const servers = name === undefined ? host.servers() : [serverStatus(host, name)];
    const details = servers.map((s) => detailOf(host, s));
    if (ctx.json) ctx.out(JSON.stringify({ servers: details }));
    else printStatus(ctx, details, { named: name !== undefined, style: styleFor(process.stdout, ctx.env) });
    if (name !== undefined && servers[0]?.state !== 'connected') return EXIT.connection;
    return EXIT.ok;
  } finally {
    await switchboard.close();
  }
}

function rowOf(host: Host, s: ServerStatus): ServerRow {
  return {
    name: s.name,
    state: s.state,
    transport: s.transport,
    protocolVersion: s.protocolVersion ?? null,
    tools: s.tools,
    resources: s.resources,
    prompts: s.prompts,
    source: s.source,
    error: s.error ? { code: s.error.code, message: s.error.message } : null,
    hint: fixHint(s, host.logFile(s.name)) ?? null,
    incompleteLists: s.incompleteLists ?? [],
  };
}

/** What an incomplete list means, in words: "tools: 7 shown, stopped after 2 pages (…)". */
function incompleteText(list: ServerRow['incompleteLists'][number]): string {
  const why =
    list.reason === 'cursor-loop'
      ? 'the server handed back a cursor already followed'
      : 'the server had more pages than are followed';
  return `${list.kind}: ${list.items} shown, stopped after ${plural(list.pages, 'page')} (${why}); it offers more`;
}

/** A server as `status --json` shows it: the list row, its log, refused tools and what it offers. */
interface ServerDetail extends ServerRow {
  readonly logFile: string;
  readonly rejectedTools: readonly {
    readonly tool: string;
    readonly reason: string;
    readonly detail: string;
  }[];
  readonly offers: {
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly resourceTemplates: readonly string[];
    readonly prompts: readonly string[];
  };
}

function detailOf(host: Host, s: ServerStatus): ServerDetail {
  const catalog = host.catalog();
  const mine = <T extends { server: string }>(items: readonly T[]) =>
    items.filter((i) => i.server === s.name);
  return {
    ...rowOf(host, s),
    logFile: host.logFile(s.name),
    rejectedTools: s.rejectedTools.map(({ tool, reason, detail }) => ({ tool, reason, detail })),
    offers: {
      tools: mine(catalog.tools).map((t) => t.tool.name),
      resources: mine(catalog.resources).map((r) => r.item.uri),
      resourceTemplates: mine(catalog.resourceTemplates).map((r) => r.item.uriTemplate),
      prompts: mine(catalog.prompts).map((p) => p.item.name),
    },
  };
}

function stateText(state: ServerStatus['state'], style: Style): string {
  if (state === 'connected') return style.green(state);
  if (state === 'disabled') return style.dim(state);
  if (state === 'needs_auth' || state === 'connecting' || state === 'reconnecting')
    return style.yellow(state);
  return style.red(state);
}

function printList(ctx: CliContext, rows: readonly ServerRow[], style: Style): void {
  if (rows.length === 0) {
    ctx.out('No servers configured. Add one to switchboard.json (see "switchboard add --help").');
    return;
  }
  const table = [
    ['NAME', 'STATE', 'PROTOCOL', 'TOOLS', 'RESOURCES', 'PROMPTS'].map((h) => style.bold(h)),
    ...rows.map((r) => [
      r.name,
      stateText(r.state, style),
      r.protocolVersion ?? '-',
      String(r.tools),
      String(r.resources),
      String(r.prompts),
    ]),
  ];
  for (const line of renderTable(table, { align: ['left', 'left', 'left', 'right', 'right', 'right'] }))
    ctx.out(line);
  const problems = rows.filter((r) => r.error || r.hint || r.incompleteLists.length > 0);
  for (const r of problems) {
    ctx.out('');
    ctx.out(`${style.bold(r.name)}: ${r.error ? `${r.error.code}: ${r.error.message}` : r.state}`);
    for (const list of r.incompleteLists) ctx.out(`  ${style.yellow('incomplete:')} ${incompleteText(list)}`);
    if (r.hint) ctx.out(`  ${style.cyan('fix:')} ${r.hint}`);
  }
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function printStatus(
  ctx: CliContext,
  details: readonly ServerDetail[],
  options: { readonly named: boolean; readonly style: Style },
): void {
  const { style } = options;
  if (details.length === 0) {
    ctx.out('No servers configured. Add one to switchboard.json (see "switchboard add --help").');
    return;
  }
  details.forEach((d, index) => {
    if (index > 0) ctx.out('');
    ctx.out(`${style.bold(d.name)}  ${stateText(d.state, style)}`);
    const rows: [string, string][] = [
      ['transport', `${d.transport}${d.protocolVersion ? `, protocol ${d.protocolVersion}` : ''}`],
    ];
    if (d.state === 'connected') {
      const templates = d.offers.resourceTemplates.length;
      rows.push([
        'offers',
        `${plural(d.tools, 'tool')}, ${plural(d.resources, 'resource')}` +
          `${templates > 0 ? ` (+${plural(templates, 'template')})` : ''}, ${plural(d.prompts, 'prompt')}`,
      ]);
    }
    for (const list of d.incompleteLists) rows.push(['incomplete', incompleteText(list)]);
    if (d.error) rows.push(['error', `${d.error.code}: ${d.error.message}`]);
    if (d.hint) rows.push(['fix', d.hint]);
    rows.push(['source', d.source], ['log', d.logFile]);
    for (const r of d.rejectedTools) rows.push(['refused', `${r.tool} (${r.reason}): ${r.detail}`]);
    if (options.named && d.state === 'connected') {
      const list = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : '-');
      rows.push(
        ['tools', list(d.offers.tools)],
        ['resources', list(d.offers.resources)],
        ['templates', list(d.offers.resourceTemplates)],
        ['prompts', list(d.offers.prompts)],
      );
    }
    const table = rows.map(([label, value]) => [style.dim(label), value]);
    for (const line of renderTable(table, { indent: 2 })) ctx.out(line);
  });
}
