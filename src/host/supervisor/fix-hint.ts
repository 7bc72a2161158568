import { isAbsolute } from 'node:path';
import type { ServerSnapshot } from './supervisor.js';

/** What `fixHint` needs of a server's status: the snapshot and where its entry came from. */
export type HintedStatus = Pick<ServerSnapshot, 'name' | 'state' | 'error'> & { readonly source: string };

/**
 * What to do about a server that is not connected, in a few words (no final period); undefined
 * when it is connected. The error's own message already names the problem; this adds the step
 * (log in, enable it, fix the entry, read its log). `logFile` is the server's log file.
 */
export function fixHint(status: HintedStatus, logFile: string): string | undefined {
  switch (status.state) {
    case 'connected':
    case 'connecting':
    case 'reconnecting':
      return status.error ? `see the log: ${logFile}` : undefined;
    case 'needs_auth':
      return `log in with: switchboard auth ${status.name}`;
    case 'disabled':
      // Off for every server at once: enabling this one would not start it.
      if (status.error?.code === 'MCP_OFF')
        return 'turn MCP on: set "enabled": true in switchboard.json (or remove it)';
      return `enable it with: switchboard enable ${status.name}`;
    case 'failed':
      switch (status.error?.code) {
        case 'ENV_VAR_MISSING':
          return `set the variable and try again (the entry is in ${status.source})`;
        case 'SPAWN_FAILED':
          return `correct the entry in ${status.source} (log: ${logFile})`;
        case 'SANDBOX_UNAVAILABLE':
          return 'do what the error says (install bubblewrap, allow user namespaces, or correct the sandbox paths), then reload';
        case 'CONFIG_INVALID':
          // A file's entry is fixed in the file; a registration is registered again or removed.
          return status.source === 'config' || isAbsolute(status.source)
            ? `correct the entry in ${status.source}`
            : `register it again with a valid entry, or remove it with: switchboard remove ${status.name}`;
        case 'CONNECT_TIMEOUT':
          return `check that the server starts, or raise its timeouts.connect (log: ${logFile})`;
        default:
          return `see the log: ${logFile}`;
      }
  }
}
