import type { CatalogKeeper } from './catalog/catalog-keeper.js';
import type { ServerSnapshot, Supervisor } from './supervisor/supervisor.js';

/**
 * Whether the host has come up: every server settled (connected, failed, or failed once and
 * retrying) and
 * the catalog rebuilt with what they listed, within `timeoutMs`. True when it has, false when
 * the time ran out first; never rejects. `Host.settled` says what waits for it.
 */
export async function whenSettled(
  supervisor: Supervisor,
  keeper: CatalogKeeper,
  timeoutMs: number,
): Promise<boolean> {
  const started = performance.now();
  // A server already retrying after a failed attempt is not one coming up normally: waiting
  // out its backoff would hold every list for the sake of a server that is broken.
  const coming = (s: ServerSnapshot) => s.state === 'connecting' && s.error === undefined;
  const snaps = await supervisor.settled(timeoutMs, coming);
  const busy = snaps.some(coming);
  const left = timeoutMs - (performance.now() - started);
  if (busy || left <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), left);
  });
  try {
    return await Promise.race([keeper.idle().then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
