import type { CredentialStore } from '../../client/auth/credential-store.js';
import type { ServerSnapshot } from '../supervisor/supervisor.js';

/**
 * Notices a login done elsewhere — `switchboard auth <server>` in another terminal, the
 * dashboard of another process — for servers waiting in `needs_auth`: every `intervalMs` it
 * looks for tokens obtained after the server started waiting, and asks for a reconnect when
 * it finds some. Only waiting servers are looked at, so an idle host costs nothing.
 */
export interface LoginWatchOptions {
  readonly credentials: CredentialStore;
  readonly servers: () => readonly ServerSnapshot[];
  /** Told of every change of the server list (the supervisor's `servers` event); returns an unsubscribe. */
  readonly subscribe: (listener: (servers: readonly ServerSnapshot[]) => void) => () => void;
  readonly reconnect: (server: string) => void;
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export function watchLogins(options: LoginWatchOptions): () => void {
  const now = options.now ?? Date.now;
  /**
   * When each server started waiting, taken from the state change itself (not from a later
   * tick), so a login finished right after the server gave up still counts as newer.
   */
  const waitingSince = new Map<string, number>();
  const track = (servers: readonly ServerSnapshot[]) => {
    const waiting = new Set<string>();
    for (const s of servers) {
      if (s.state !== 'needs_auth') continue;
      waiting.add(s.name);
      if (!waitingSince.has(s.name)) waitingSince.set(s.name, now());
    }
    for (const name of waitingSince.keys()) if (!waiting.has(name)) waitingSince.delete(name);
  };
  const unsubscribe = options.subscribe(track);
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      track(options.servers());
      for (const [name, since] of waitingSince) {
        if (await hasTokensAfter(options.credentials, name, since)) {
          waitingSince.delete(name);
          options.reconnect(name);
        }
      }
    } catch {
      // A credential store that cannot be read now is tried again on the next tick.
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? 2_000);
  timer.unref();
  return () => {
    clearInterval(timer);
    unsubscribe();
  };
}

async function hasTokensAfter(store: CredentialStore, server: string, since: number): Promise<boolean> {
  for (const issuer of await store.issuers(server)) {
    const obtainedAt = (await store.load(server, issuer))?.tokens?.obtainedAt;
    if (obtainedAt !== undefined && obtainedAt > since) return true;
  }
  return false;
}
