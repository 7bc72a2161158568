import { SwitchboardError } from '../core/errors.js';
import type { ServerState } from './supervisor/supervisor.js';

/**
 * The host's errors about a server by name, written once: the supervisor, the registry and
 * the call paths raise the same code and wording for the same situation.
 */

/** No server by that name is configured or registered. */
export function unknownServer(name: string): SwitchboardError {
  return new SwitchboardError(
    'NOT_FOUND',
    `No server named "${name}". List the servers to see their names.`,
    {
      details: { server: name },
    },
  );
}

/**
 * `server` is registered but `what` ("tool \"x\"", "resource …", default "it") is not
 * available from it now: it is starting, reconnecting or being listed again (retry soon,
 * `UPSTREAM_RECONNECTING`), or it is down until someone acts (`UPSTREAM_DISCONNECTED`).
 */
export function serverAway(server: string, state: ServerState | undefined, what = 'it'): SwitchboardError {
  const pending: Partial<Record<ServerState, string>> = {
    connecting: `Server "${server}" is starting`,
    reconnecting: `Server "${server}" is reconnecting`,
    // Back, its lists not read into the catalog yet: a moment.
    connected: `Server "${server}" has just reconnected and is being listed again`,
  };
  const doing = state && pending[state];
  if (doing) {
    return new SwitchboardError(
      'UPSTREAM_RECONNECTING',
      `${doing}: ${what} is back when it is. Retry in a moment.`,
      {
        details: { server, state, retryable: true },
      },
    );
  }
  const why =
    state === 'needs_auth' ? 'needs a login' : state === 'disabled' ? 'is disabled' : 'is not connected';
  return new SwitchboardError(
    'UPSTREAM_DISCONNECTED',
    `Server "${server}" ${why}, so ${what} is not available. See its status and log, then fix or reload it.`,
    { details: { server, ...(state && { state }) } },
  );
}
