import { SwitchboardError, type SwitchboardErrorCode } from '../core/errors.js';
import type { Host, ServerStatus } from '../host/host.js';
import { fixHint } from '../host/supervisor/fix-hint.js';
import { type CliContext, EXIT, exitCodeOf } from './cli-context.js';
import { didYouMean } from './help/suggest.js';

/**
 * What the read verbs say about a server that is not connected: why, in an error whose code
 * exits 3 (connection or auth failure), and the step that fixes it (log in, enable it, fix the
 * entry, read its log). Listings over every server report such servers on stderr, or under
 * `unavailable` in their JSON, and go on with the rest.
 */

// The hint lives with the host (the dashboard's API shows it too); listings import it from here.
export { fixHint };

/** The status of `name`, or NOT_FOUND (exit 2) naming the servers there are. */
export function serverStatus(host: Host, name: string): ServerStatus {
  const status = host.servers().find((s) => s.name === name);
  if (status) return status;
  // Callers that started only some servers check the name against the configuration first
  // (requireConfigured), so this lists every server the host was given.
  const known = host.servers().map((s) => s.name);
  throw new SwitchboardError(
    'NOT_FOUND',
    `No server named "${name}".${didYouMean(name, known)} ` +
      (known.length > 0
        ? `Servers: ${known.join(', ')}.`
        : 'None is configured: add one with "switchboard add".'),
    { details: { server: name, configured: known } },
  );
}

/**
 * A connected server's status; otherwise an error that says why it is not usable and what to do,
 * with a code that exits 3 (connection or auth failure).
 */
export function requireConnected(host: Host, name: string): ServerStatus {
  const status = serverStatus(host, name);
  if (status.state === 'connected') return status;
  const { text, code } = problemOf(status);
  const hint = fixHint(status, host.logFile(name));
  throw new SwitchboardError(code, `${text}${hint ? ` ${capitalize(hint)}.` : ''}`, {
    details: { server: name, state: status.state, ...(status.error && { reason: status.error.code }) },
  });
}

function problemOf(status: ServerStatus): { text: string; code: SwitchboardErrorCode } {
  const name = `Server "${status.name}"`;
  switch (status.state) {
    case 'needs_auth':
      return { text: `${name} needs a login.`, code: 'AUTH_REQUIRED' };
    case 'disabled':
      if (status.error?.code === 'MCP_OFF')
        return { text: `${name} is not started: ${status.error.message}`, code: 'MCP_OFF' };
      return { text: `${name} is disabled.`, code: 'NOT_CONNECTED' };
    case 'connecting':
    case 'reconnecting':
      return { text: `${name} did not connect in time.`, code: 'CONNECT_TIMEOUT' };
    default: {
      const error = status.error;
      if (!error) return { text: `${name} is not connected.`, code: 'CONNECT_FAILED' };
      // Its entry does not normalize: nothing to connect with, and the fix is the entry's.
      if (error.code === 'CONFIG_INVALID')
        return { text: `${name} cannot start (CONFIG_INVALID): ${error.message}`, code: 'CONFIG_INVALID' };
      // Keep the server's own code when it already reads as a connection failure (exit 3).
      const own = new SwitchboardError(error.code as SwitchboardErrorCode, error.message);
      const code = exitCodeOf(own) === EXIT.connection ? own.code : 'CONNECT_FAILED';
      return { text: `${name} failed to connect (${error.code}): ${error.message}`, code };
    }
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A server that is not connected, as listings report it (on stderr, or under `unavailable` in JSON). */
export interface UnavailableServer {
  readonly server: string;
  readonly state: ServerStatus['state'];
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly hint: string | null;
}

/** The servers that are not connected, with what to do about each. */
export function unavailableServers(host: Host): UnavailableServer[] {
  return host
    .servers()
    .filter((s) => s.state !== 'connected')
    .map((s) => ({
      server: s.name,
      state: s.state,
      error: s.error ? { code: s.error.code, message: s.error.message } : null,
      hint: fixHint(s, host.logFile(s.name)) ?? null,
    }));
}

/** Writes one stderr line per server that is not connected (human output of listings). */
export function warnUnavailable(ctx: CliContext, unavailable: readonly UnavailableServer[]): void {
  if (ctx.quiet) return;
  for (const u of unavailable) {
    const why = u.error ? `: ${u.error.code}: ${u.error.message}` : '.';
    ctx.err(
      `switchboard: ${u.server} is not connected (${u.state})${why}${u.hint ? ` Fix: ${u.hint}.` : ''}`,
    );
  }
}
