import { serverSupportsToolTasks, TASKS_EXTENSION_ID, toolTaskSupport } from '../../client/task-runner.js';
import type { ServerConfig, TaskAfterRule } from '../../core/server-config.js';
import type { CatalogTool } from '../../host/catalog/catalog.js';
import { compileNameFilter } from '../../host/catalog/globs.js';
import type { Host } from '../../host/host.js';

/**
 * When a call through the gateway becomes a task: where the upstream runs the tool as one
 * (a 2025-11-25 tool marked `taskSupport`, a 2026-07-28 server offering the Tasks extension),
 * and where the operator said so (`taskAfter` of the server's entry: calls still running
 * after so many seconds). Which tools a 2025 session is told may run as tasks follows from it.
 */

export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** The `taskAfter` rule of `tool` among `rules`, in ms; exact names come first (normalize put them there). */
export function taskAfterFor(rules: readonly TaskAfterRule[] | undefined, tool: string): number | undefined {
  for (const rule of rules ?? []) if (matcher(rule.tools)(tool)) return rule.afterMs;
  return undefined;
}

const matchers = new Map<string, (name: string) => boolean>();
function matcher(glob: string): (name: string) => boolean {
  let match = matchers.get(glob);
  if (match === undefined) {
    match = compileNameFilter([glob]);
    // Globs come from config files: few, but bounded all the same.
    if (matchers.size > 1000) matchers.clear();
    matchers.set(glob, match);
  }
  return match;
}

/** After how many ms a call of `entry` becomes a task by the operator's `taskAfter`, if at all. */
export function taskAfterMs(host: Host, entry: CatalogTool): number | undefined {
  return taskAfterFor(host.serverConfig(entry.server)?.taskAfter, entry.tool.name);
}

/** Whether the upstream runs `entry` as a 2025-11-25 task when the gateway calls it (the Connection's own rule). */
export function upstreamRunsAsTask(host: Host, entry: CatalogTool): boolean {
  const upstream = host.upstreamProtocol(entry.server);
  if (upstream.era !== 'legacy' || !serverSupportsToolTasks(upstream.capabilities, 'legacy')) return false;
  const support = toolTaskSupport(entry.tool);
  const config: ServerConfig | undefined = host.serverConfig(entry.server);
  return support === 'required' || (support === 'optional' && config?.optionalTasks !== 'inline');
}

/**
 * The `taskSupport` a 2025 session is told for `entry`: what a 2025-11-25 upstream says (when
 * it supports tasks), `optional` for a 2026-07-28 upstream offering the Tasks extension (there
 * the server decides per call) or a tool under `taskAfter`, else `forbidden`.
 */
export function offeredTaskSupport(host: Host, entry: CatalogTool): TaskSupport {
  const upstream = host.upstreamProtocol(entry.server);
  if (upstream.era === 'legacy' && serverSupportsToolTasks(upstream.capabilities, 'legacy')) {
    const own = toolTaskSupport(entry.tool);
    if (own !== 'forbidden') return own;
  }
  if (upstream.era === 'modern' && serverSupportsToolTasks(upstream.capabilities, 'modern'))
    return 'optional';
  return taskAfterMs(host, entry) === undefined ? 'forbidden' : 'optional';
}

/** Whether any call through the gateway may become a task now: then it offers tasks (both eras' forms). */
export function tasksOffered(host: Host): boolean {
  return host.servers().some((s) => {
    if (host.serverConfig(s.name)?.taskAfter !== undefined) return true;
    if (s.state !== 'connected') return false;
    const upstream = host.upstreamProtocol(s.name);
    return upstream.era !== undefined && serverSupportsToolTasks(upstream.capabilities, upstream.era);
  });
}

/** Whether per-request client capabilities declare the Tasks extension. */
export function declaresTasks(capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return (
    typeof extensions === 'object' &&
    extensions !== null &&
    (extensions as Record<string, unknown>)[TASKS_EXTENSION_ID] !== undefined
  );
}
