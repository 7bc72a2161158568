import { describeError } from '../core/errors.js';
import type { Host } from '../host/host.js';
import type { CliContext } from './cli-context.js';
import { openInboxEndpoint } from './inbox-endpoint.js';

/**
 * The Inbox of a long-running Switchboard (`serve`, `start`) made reachable for `switchboard
 * inbox` in another terminal. If it cannot open (another process already serves this data
 * dir) the daemon still runs: its approvals are then declined at once, as without a front-end.
 * It answers only requests with the data dir's local token (`token`). Returns the function
 * that closes it.
 */
export async function openDaemonInbox(
  ctx: CliContext,
  host: Host,
  dataDir: string,
  token: string,
): Promise<() => Promise<void>> {
  try {
    const endpoint = await openInboxEndpoint(host.inbox, { dataDir, token });
    return () => endpoint.close();
  } catch (error) {
    if (!ctx.quiet)
      ctx.err(`switchboard: "switchboard inbox" cannot reach this process: ${describeError(error)}`);
    return async () => undefined;
  }
}
