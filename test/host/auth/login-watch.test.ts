import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCredentialStore } from '../../../src/client/auth/memory-credential-store.js';
import { watchLogins } from '../../../src/host/auth/login-watch.js';
import type { ServerSnapshot } from '../../../src/host/supervisor/supervisor.js';

const snapshot = (name: string, state: ServerSnapshot['state']): ServerSnapshot => ({
  name,
  transport: 'http',
  state,
  tools: 0,
  resources: 0,
  prompts: 0,
});

afterEach(() => vi.useRealTimers());

describe('watchLogins', () => {
  it('reconnects a waiting server once tokens newer than its wait appear, and only then', async () => {
    vi.useFakeTimers();
    const credentials = new MemoryCredentialStore();
    let servers = [snapshot('crm', 'connected'), snapshot('wiki', 'needs_auth')];
    let listener: ((s: readonly ServerSnapshot[]) => void) | undefined;
    const reconnected: string[] = [];
    // Tokens from before the wait (they were tried and failed): no reconnect for them.
    await credentials.save('wiki', 'https://as', {
      tokens: { access_token: 'old', token_type: 'Bearer', obtainedAt: Date.now() - 1_000 },
    });
    const stop = watchLogins({
      credentials,
      servers: () => servers,
      subscribe: (l) => {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
      reconnect: (name) => reconnected.push(name),
      intervalMs: 1_000,
    });
    listener!(servers);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reconnected).toEqual([]);

    await credentials.save('wiki', 'https://as', {
      tokens: { access_token: 'new', token_type: 'Bearer', obtainedAt: Date.now() + 1 },
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reconnected).toEqual(['wiki']);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reconnected).toEqual(['wiki']);

    // Waiting again later (the new tokens failed too): those tokens do not count any more.
    servers = [snapshot('wiki', 'connecting')];
    listener!(servers);
    vi.advanceTimersByTime(10);
    servers = [snapshot('wiki', 'needs_auth')];
    listener!(servers);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reconnected).toEqual(['wiki']);
    stop();
    expect(listener).toBeUndefined();
  });
});
