import type { Host } from '../../host/host.js';

/**
 * The gateway's start: right after `serve` starts, its servers are still connecting, and a
 * client that lists once (many do; `serve --stdio` under a desktop client always does) would
 * never see them, and its calls would get "unknown tool". So the first lists and a call to a
 * name not (yet) served wait, bounded, until the host has settled (`Host.settled`: every
 * server connected or failed, the catalog rebuilt). Only the start: once settled, or once the
 * bound ran out, nothing waits again (a server reconnecting later is answered as such,
 * unserved.ts). `/readyz` reports the same state.
 */

/** How long the first lists wait for the servers at most: well inside a client's request timeout. */
export const STARTUP_WAIT_MS = 30_000;

interface Startup {
  readonly wait: Promise<void>;
  done: boolean;
  settled: boolean;
}

const startups = new WeakMap<Host, Startup>();

function startupOf(host: Host, timeoutMs: number): Startup {
  let startup = startups.get(host);
  if (!startup) {
    // Asked first long after the start (a gateway made on a host that is up): over at once.
    const up = !host.servers().some((s) => s.state === 'connecting' && s.error === undefined);
    const made: Startup = {
      done: up,
      settled: up,
      wait: host.settled(timeoutMs).then((settled) => {
        made.done = true;
        made.settled = settled;
      }),
    };
    startups.set(host, made);
    startup = made;
  }
  return startup;
}

/** Waits for the host's start (at once when it is over). */
export function untilStarted(host: Host, timeoutMs = STARTUP_WAIT_MS): Promise<void> {
  const startup = startupOf(host, timeoutMs);
  return startup.done ? Promise.resolve() : startup.wait;
}

/** Whether the start is over: every server settled, or the wait ran out (`settled` says which). */
export function startState(host: Host, timeoutMs = STARTUP_WAIT_MS): { done: boolean; settled: boolean } {
  const { done, settled } = startupOf(host, timeoutMs);
  return { done, settled };
}
