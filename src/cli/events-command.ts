import { EventFeed } from '../host/event-feed.js';
import type { Store, StoredEvent } from '../storage/ports.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openStoreIfAny } from './configured-servers.js';
import { printable } from './output/style.js';

/**
 * `switchboard events [--follow] [--peek] [--limit N]`: the server notifications the host
 * stored (`event/new_email` and the like), taken from the store the way `host.takeEvents()` /
 * `ackEvents()` take them: each is handed to one taker only, so what this prints is consumed
 * — unless `--peek` hands it back as pending for another consumer. `--follow` keeps taking new
 * ones (a running gateway stores them) until Ctrl-C.
 */
export const EVENTS_USAGE = `usage: switchboard events [--follow] [--peek] [--limit N]
  Prints the pending server events (notifications such as event/new_email that Switchboard
  stored) and acknowledges them, so they are not delivered again. --peek leaves them pending.
  --follow keeps printing new ones until Ctrl-C. With --json: one JSON object per line.`;

/** How often `--follow` looks for new events. */
const FOLLOW_INTERVAL_MS = 500;

export async function eventsCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    follow: { type: 'boolean', short: 'f', default: false },
    peek: { type: 'boolean', default: false },
    limit: { type: 'string', default: '100' },
  });
  if (positionals.length > 0) throw new UsageError(`events takes no arguments ("${positionals[0]}").`);
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit takes a positive whole number, not "${values.limit}".`);
  if (values.peek && values.follow)
    throw new UsageError('--peek and --follow do not go together: following consumes.');
  const store = await openStoreIfAny(ctx);
  if (!store) {
    if (!ctx.json && !ctx.quiet) ctx.err(`No events: nothing has been stored in ${ctx.dataDir} yet.`);
    return EXIT.ok;
  }
  try {
    const print = (e: StoredEvent) => ctx.out(ctx.json ? JSON.stringify(eventJson(e)) : eventLine(e));
    const take = takeBatch(store, limit, values.peek, print);
    const first = await take();
    if (!values.follow) {
      if (first.length === 0 && !ctx.json && !ctx.quiet) ctx.err('No pending events.');
      return EXIT.ok;
    }
    await new Promise<void>((resolve) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        take()
          .catch((error: unknown) => ctx.err(`switchboard events: ${String(error)}`))
          .finally(() => {
            busy = false;
          });
      }, FOLLOW_INTERVAL_MS);
      const stop = () => {
        clearInterval(timer);
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return EXIT.ok;
  } finally {
    await store.close();
  }
}

/**
 * Takes up to `limit` pending events, has them printed, then acknowledges them — or hands them
 * back with `peek`. Printed before acknowledged: a crash in between delivers them again.
 */
function takeBatch(
  store: Store,
  limit: number,
  peek: boolean,
  print: (e: StoredEvent) => void,
): () => Promise<StoredEvent[]> {
  const feed = new EventFeed(store.events);
  return async () => {
    const batch = await feed.take(limit);
    const ids = batch.map((e) => e.id);
    try {
      batch.forEach(print);
    } catch (error) {
      await store.events.release(ids);
      throw error;
    }
    if (ids.length > 0) await (peek ? store.events.release(ids) : feed.ack(ids));
    return batch;
  };
}

function eventJson(e: StoredEvent) {
  return {
    id: e.id,
    server: e.server,
    method: e.method,
    params: e.params ?? null,
    receivedAt: e.receivedAt.toISOString(),
  };
}

function eventLine(e: StoredEvent): string {
  const params = e.params === undefined ? '' : ` ${JSON.stringify(e.params)}`;
  return printable(`${e.receivedAt.toISOString()}  #${e.id}  ${e.server}  ${e.method}${params}`, {
    singleLine: true,
  });
}
