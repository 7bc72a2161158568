import { SwitchboardError } from '../core/errors.js';

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
