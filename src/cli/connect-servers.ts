import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Prompt } from '@modelcontextprotocol/client';
import { DATABASE_URL_ENV } from '../app/database-env.js';
import type { Switchboard } from '../app/switchboard.js';
import { userConfigPath } from '../config-files/config-paths.js';
import { SwitchboardError } from '../core/errors.js';
import type { CatalogTool } from '../host/catalog/catalog.js';
import type { Host, ServerStatus } from '../host/host.js';
import { type ServerRef, splitServerRef } from './arguments/tool-ref.js';
import { type CliContext, UsageError } from './cli-context.js';
import { didYouMean } from './help/suggest.js';
import { startSpinner } from './output/spinner.js';
import { requireConnected } from './server-state.js';

/**
 * How the read verbs (list, status, tools, call, …) bring servers up for one command: only the
 * servers the command needs, each tried once (a one-shot command reports a broken server at
 * once instead of retrying for half a minute), and the command waits until every one has
 * connected or failed and the catalog holds what the connected ones offer. A spinner on
 * stderr shows who is still connecting, on a TTY only.
 *
 * The host, the store and the SDK are imported when servers are opened, not with this module:
 * a verb that needs none of them (its --help, a listing of nothing) does not pay for loading
 * them.
 */

export interface OpenServersOptions {
  /** Connect only these configured servers; default every one. */
  readonly only?: readonly string[];
}

/** After every server settled, how long the catalog may take to hold what they offer. */
const CATALOG_GRACE_MS = 5_000;
/** Beyond the slowest server's startup budget, before the command goes on without it. */
const STARTUP_SLACK_MS = 5_000;

/**
 * The names of the configured servers (both config files), without starting anything; an
 * entry that does not normalize is named too (the host lists it as failed).
 */
export async function configuredServerNames(ctx: CliContext): Promise<string[]> {
  const { loadConfig } = await import('../config-files/load-config.js');
  const config = await loadConfig(
    { projectDir: ctx.projectDir, projectFile: ctx.projectFile, homeDir: ctx.homeDir },
    { invalidEntries: 'collect' },
  );
  return [...config.servers.map((s) => s.name), ...(config.invalid ?? []).map((e) => e.name)];
}

/**
 * Whether there is nothing to start: no project or user config file, and no store that could
 * hold registrations (no PostgreSQL URL either). Found with a few stats, so a listing of
 * nothing answers without loading the host.
 */
export function nothingConfigured(ctx: CliContext): boolean {
  if (ctx.env[DATABASE_URL_ENV]) return false;
  return ![ctx.projectFile, userConfigPath(ctx.homeDir), join(ctx.dataDir, 'switchboard.db')].some((file) =>
    existsSync(file),
  );
}

/** Starts the servers and waits until they are up or have failed. Close the result when done. */
export async function openServers(ctx: CliContext, options: OpenServersOptions = {}): Promise<Switchboard> {
  // A name that is not configured is said so with every configured name, before anything
  // starts (a host given only that name would know of no server at all).
  if (options.only) await (await import('./configured-servers.js')).requireConfigured(ctx, options.only);
  const { createSwitchboard } = await import('../app/switchboard.js');
  const switchboard = await createSwitchboard({
    projectDir: ctx.projectDir,
    projectFile: ctx.projectFile,
    homeDir: ctx.homeDir,
    dataDir: ctx.dataDir,
    ...(options.only && { only: options.only }),
    firstConnectDelaysMs: [],
  });
  try {
    await settle(ctx, switchboard.host);
  } catch (error) {
    await switchboard.close();
    throw error;
  }
  return switchboard;
}

async function settle(ctx: CliContext, host: Host): Promise<void> {
  const budget =
    Math.max(0, ...host.servers().map((s) => host.serverConfig(s.name)?.startupTimeoutMs ?? 0)) +
    STARTUP_SLACK_MS;
  const spinner = startSpinner('connecting', {
    stream: process.stderr,
    enabled: !ctx.json && !ctx.quiet && process.stderr.isTTY === true,
  });
  const deadline = AbortSignal.timeout(budget);
  let grace: NodeJS.Timeout | undefined;
  const stop = new AbortController();
  const signal = AbortSignal.any([deadline, stop.signal]);
  try {
    for await (const servers of host.serverUpdates(signal)) {
      const connecting = servers.filter((s) => s.state === 'connecting' || s.state === 'reconnecting');
      if (connecting.length > 0) {
        spinner.update(`connecting ${connecting.map((s) => s.name).join(', ')}`);
        continue;
      }
      if (catalogComplete(host, servers)) break;
      // A listing that failed is never complete: wait a little, then go on with what it holds.
      grace ??= setTimeout(() => stop.abort(), CATALOG_GRACE_MS);
      spinner.update('reading what the servers offer');
    }
  } finally {
    clearTimeout(grace);
    spinner.stop();
  }
}

/** Whether the catalog holds every tool, resource and prompt the connected servers reported. */
function catalogComplete(host: Host, servers: readonly ServerStatus[]): boolean {
  const catalog = host.catalog();
  const count = <T extends { server: string }>(items: readonly T[], server: string) =>
    items.filter((i) => i.server === server).length;
  return servers
    .filter((s) => s.state === 'connected')
    .every(
      (s) =>
        count(catalog.tools, s.name) + count(catalog.rejected, s.name) === s.toolsListed &&
        count(catalog.resources, s.name) === s.resources &&
        count(catalog.prompts, s.name) === s.prompts,
    );
}

/** The servers a listing verb covers: the named one (connected, or an error that exits 3), or every one. */
export async function openListing(ctx: CliContext, server: string | undefined): Promise<Switchboard> {
  const switchboard = await openServers(ctx, server === undefined ? {} : { only: [server] });
  if (server === undefined) return switchboard;
  try {
    requireConnected(switchboard.host, server);
  } catch (error) {
    await switchboard.close();
    throw error;
  }
  return switchboard;
}

/** A tool or prompt named on the command line, found on its (connected) server. */
export interface Found<T> {
  readonly switchboard: Switchboard;
  readonly server: string;
  readonly item: T;
}

/**
 * Starts what `ref` needs and finds the tool: `server.tool` and `mcp__server__tool` connect only
 * that server; a bare tool name connects every server and must name exactly one tool.
 */
export function openForTool(ctx: CliContext, ref: string): Promise<Found<CatalogTool>> {
  return openFor(ctx, ref, {
    kind: 'tool',
    find: (host, at) => {
      const tools = host.catalog().tools;
      if (at.form === 'qualified') return host.catalog().lookup(ref);
      return tools.find((t) => t.server === at.server && t.tool.name === at.name);
    },
    candidates: (host) => host.catalog().tools.map((t) => ({ server: t.server, name: t.tool.name, item: t })),
    refused: (host, at) =>
      host.catalog().rejected.find((r) => r.server === at.server && (r.tool === at.name || r.name === ref)),
  });
}

/** Like `openForTool`, for a prompt (`server.prompt` or a bare prompt name). */
export function openForPrompt(ctx: CliContext, ref: string): Promise<Found<Prompt>> {
  return openFor(ctx, ref, {
    kind: 'prompt',
    find: (host, at) =>
      host.catalog().prompts.find((p) => p.server === at.server && p.item.name === at.name)?.item,
    candidates: (host) =>
      host.catalog().prompts.map((p) => ({ server: p.server, name: p.item.name, item: p.item })),
  });
}

interface FindRules<T> {
  readonly kind: 'tool' | 'prompt';
  find(host: Host, at: ServerRef): T | undefined;
  candidates(host: Host): { server: string; name: string; item: T }[];
  refused?(host: Host, at: ServerRef): { reason: string; detail: string } | undefined;
}

async function openFor<T>(ctx: CliContext, ref: string, rules: FindRules<T>): Promise<Found<T>> {
  const at = splitServerRef(ref, await configuredServerNames(ctx));
  const switchboard = await openServers(ctx, at ? { only: [at.server] } : {});
  try {
    const { host } = switchboard;
    // A server registered at run time is not in the config files: try the names the host has.
    const where =
      at ??
      splitServerRef(
        ref,
        host.servers().map((s) => s.name),
      );
    if (where) {
      requireConnected(host, where.server);
      const item = rules.find(host, where);
      if (item !== undefined) return { switchboard, server: where.server, item };
      const refused = rules.refused?.(host, where);
      const offered = rules
        .candidates(host)
        .filter((c) => c.server === where.server)
        .map((c) => c.name);
      throw new SwitchboardError(
        'NOT_FOUND',
        refused
          ? `${where.server} offers a ${rules.kind} "${where.name}" but Switchboard refused it (${refused.reason}): ${refused.detail}.`
          : `${where.server} has no ${rules.kind} "${where.name}".${didYouMean(where.name, offered)} It offers: ${offered.join(', ') || '(none)'}.`,
        { details: { server: where.server, [rules.kind]: where.name } },
      );
    }
    const matches = rules.candidates(host).filter((c) => c.name === ref);
    if (matches.length === 1) return { switchboard, server: matches[0]!.server, item: matches[0]!.item };
    if (matches.length > 1)
      throw new UsageError(
        `More than one server has a ${rules.kind} "${ref}": name one of ${matches.map((m) => `${m.server}.${m.name}`).join(', ')}.`,
      );
    const down = host
      .servers()
      .filter((s) => s.state !== 'connected')
      .map((s) => s.name);
    const known = host.servers().map((s) => s.name);
    // `x.y` where x is no server reads as a mistyped server name.
    const server = ref.includes('.') ? ref.slice(0, ref.indexOf('.')) : undefined;
    const names = rules.candidates(host).flatMap((c) => [c.name, `${c.server}.${c.name}`]);
    throw new SwitchboardError(
      'NOT_FOUND',
      server !== undefined
        ? `No server named "${server}" and no ${rules.kind} "${ref}".${didYouMean(ref, names) || didYouMean(server, known)} Servers: ${known.join(', ') || '(none)'}.`
        : `No ${rules.kind} "${ref}" on the connected servers.${didYouMean(ref, names)} Write it as <server>.<${rules.kind}> ` +
            `("switchboard ${rules.kind}s" lists them)${down.length > 0 ? `. Not connected: ${down.join(', ')}` : ''}.`,
      { details: { [rules.kind]: ref } },
    );
  } catch (error) {
    await switchboard.close();
    throw error;
  }
}
