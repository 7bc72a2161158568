import type { Connection } from '../client/connection.js';
import type { ToolCallOptions } from '../client/connection-types.js';
import type { ToolResult } from '../client/results.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { isAppVisible } from '../core/mcp-apps.js';
import { type ServedNote, servedNote } from '../core/telemetry/served-note.js';
import { outcomeOfError } from '../core/telemetry/step-span.js';
import type { Caller, CallerRelay } from './caller-relay.js';
import type { CatalogTool } from './catalog/catalog.js';
import { type Admission, type AskApproval, DEFAULT_SESSION, type Governor } from './governance/governor.js';
import type { CallHooks } from './host-types.js';

/**
 * The one path every tool call takes through the host, whatever it sends upstream (a plain
 * call, or a 2026-07-28 request relayed for the gateway): catalog lookup, policy and approval,
 * the `before` hooks, the call with the caller registered for the server's requests, the
 * audit record and the `after` hooks — on success and on failure alike.
 */

/** Options of a tool call through the host. */
export type HostCallOptions = ToolCallOptions & {
  readonly session?: string;
  /** Who answers if policy asks, for this call (the gateway asks the calling client). */
  readonly askApproval?: AskApproval;
  /** Who answers the server's elicitation and sampling requests while this call runs. */
  readonly caller?: Caller;
  /**
   * The call comes from an MCP App rendered for a tool of `server` (its view called back):
   * it may reach only that server's tools whose visibility includes `"app"` (SEP-1865
   * §Visibility: "callable by the app from the same server connection only"; cross-server
   * calls are always blocked). Anything else is POLICY_DENIED, audited, before policy runs.
   */
  readonly app?: { readonly server: string };
};

/** Starts the upstream work on `connection` for the server's tool named `tool`. */
export type GovernedStart<T> = (
  connection: Connection,
  tool: string,
) => {
  readonly run: Promise<T>;
  /** The tool result to audit, when the answer is one (not when more rounds follow). */
  readonly result: (value: T) => ToolResult | undefined;
};

/** What the path needs from the host. */
export interface GovernedDeps {
  lookup(name: string): CatalogTool | undefined;
  /** Why `name` is not in the catalog: unknown, or its server reconnecting (missing-names.ts). */
  missing(name: string): SwitchboardError;
  connected(server: string): Connection;
  readonly governor: Governor;
  readonly hooks: readonly CallHooks[];
  readonly callers: CallerRelay;
  requireLogin(server: string, error: SwitchboardError): Promise<void>;
}

export async function runGoverned<T>(
  deps: GovernedDeps,
  call: {
    readonly name: string;
    readonly args: Record<string, unknown>;
    readonly options: HostCallOptions;
    readonly start: GovernedStart<T>;
  },
): Promise<T> {
  const { name, args, options } = call;
  const entry = deps.lookup(name);
  if (!entry) throw deps.missing(name);
  const session = options.session ?? DEFAULT_SESSION;
  // The gateway's SERVER span of this request, if one records: told the server and outcome.
  const note = servedNote();
  if (note) note.server = entry.server;
  let admission: Admission;
  let connection: Connection;
  try {
    if (options.app) await refuseOutOfScope(deps.governor, entry, options.app.server, session);
    connection = deps.connected(entry.server);
    admission = await deps.governor.admit(entry, args, {
      session,
      signal: options.signal,
      askApproval: options.askApproval,
      ...(options.app && { via: 'app' }),
    });
  } catch (error) {
    if (note) noteFailure(note, error);
    throw error;
  }
  // Made only for hooks: most hosts (the gateway's) have none, and this path runs per call.
  const hooks = deps.hooks.length > 0 ? deps.hooks : undefined;
  const hookCall = hooks && { name, server: entry.server, tool: entry.tool.name, args, session };
  if (hooks) for (const h of hooks) await h.before?.(hookCall!);
  const started = performance.now();
  const leave = options.caller ? deps.callers.enter(entry.server, options.caller) : undefined;
  try {
    const { run, result: resultOf } = call.start(connection, entry.tool.name);
    const value = await run;
    const durationMs = performance.now() - started;
    const result = resultOf(value);
    if (note) note.outcome = result?.isError ? 'tool_error' : 'ok';
    const outcome = result ? { durationMs, result } : { durationMs };
    await deps.governor.record(admission, outcome);
    if (hooks) for (const h of hooks) await h.after?.({ ...hookCall!, ...outcome });
    return value;
  } catch (error) {
    const durationMs = performance.now() - started;
    if (note) noteFailure(note, error);
    // Credentials that stopped working mid-session: the server waits for a login.
    if (isSwitchboardError(error, 'AUTH_REQUIRED')) await deps.requireLogin(entry.server, error);
    await deps.governor.record(admission, { durationMs, error });
    if (hooks) for (const h of hooks) await h.after?.({ ...hookCall!, durationMs, error });
    throw error;
  } finally {
    leave?.();
  }
}

/** What the served request's span says of a failure in our terms (served-note.ts). */
function noteFailure(note: ServedNote, error: unknown): void {
  note.outcome = outcomeOfError(error);
  if (error instanceof SwitchboardError) note.errorCode = error.code;
}

/**
 * Refuses an app's call to a tool it may not reach: another server's (whatever its
 * visibility), or its own server's tool whose visibility leaves out `"app"`. Audited as a
 * denied call, like a policy denial.
 */
async function refuseOutOfScope(
  governor: Governor,
  entry: CatalogTool,
  appServer: string,
  session: string,
): Promise<void> {
  const reason =
    entry.server !== appServer
      ? `an app of server "${appServer}" may call only that server's tools, not "${entry.server}"'s`
      : isAppVisible(entry.tool)
        ? undefined
        : `${entry.tool.name}'s visibility leaves out "app": only a model may call it`;
  if (reason === undefined) return;
  await governor.note({
    action: 'tool_call',
    session,
    server: entry.server,
    outcome: 'denied',
    details: { tool: entry.tool.name, via: 'app', app: appServer, reason },
  });
  throw new SwitchboardError(
    'POLICY_DENIED',
    `The call to ${entry.name} is refused: ${reason}. An app calls the tools of its own server that list "app" in _meta.ui.visibility.`,
    { details: { server: entry.server, tool: entry.tool.name, reason: 'app_scope', app: appServer } },
  );
}
