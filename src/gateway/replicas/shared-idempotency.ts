/**
 * The idempotency cache of replicas sharing one store (docs/replicas.md): a call repeated with
 * the same key on any replica gets the first call's result, and the upstream is called once.
 * The replica that first claims a key in the store runs the call and stores its result; one
 * that finds the key claimed waits for that result, reading the store until it is there (or
 * the claim is given up, when the call failed: then it claims and runs the call itself). A
 * replica keeps what it saw in its own cache too, so a repeat on the same replica costs
 * nothing. Results are JSON in the store: what a tool call answers.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { SwitchboardError } from '../../core/errors.js';
import type { IdempotencyRepository } from '../../storage/ports.js';
import { type Idempotency, IdempotencyCache } from '../mcp/idempotency.js';

/** How often a waiting replica reads the store for the result. */
const POLL_MS = 25;
/** Expired records are deleted once in this many claims. */
const PRUNE_EVERY_CLAIMS = 500;

export class SharedIdempotency<T> implements Idempotency<T> {
  private readonly local: IdempotencyCache<T>;
  private claims = 0;

  constructor(
    private readonly options: {
      readonly repository: IdempotencyRepository;
      /** This replica's id (the owner of its claims). */
      readonly owner: string;
      readonly ttlMs: number;
      /**
       * How long a call may run (the request timeout): a claim lasts this long, so a replica
       * that died running the call holds its key no longer; a repeat waits as long.
       */
      readonly waitMs: number;
      readonly onerror?: (error: Error) => void;
    },
  ) {
    this.local = new IdempotencyCache<T>(options.ttlMs);
  }

  run(principal: string, key: string, run: () => Promise<T>): Promise<T> {
    return this.local.run(principal, key, () => this.shared(storeKey(principal, key), run));
  }

  private async shared(key: string, run: () => Promise<T>): Promise<T> {
    const { repository, owner } = this.options;
    const deadline = Date.now() + this.options.waitMs;
    while (Date.now() < deadline) {
      if (await repository.claim(key, owner, this.options.waitMs)) {
        this.pruneNowAndThen();
        let value: T;
        try {
          value = await run();
        } catch (error) {
          await repository.abandon(key, owner).catch((e: unknown) => this.report(e));
          throw error;
        }
        await repository
          .complete(key, owner, value, this.options.ttlMs)
          .catch((e: unknown) => this.report(e));
        return value;
      }
      const found = await repository.get(key);
      if (found?.result !== undefined) return found.result as T;
      // Claimed and still running elsewhere (or just given up: the next claim will tell).
      if (found) await delay(POLL_MS);
    }
    throw new SwitchboardError(
      'REQUEST_TIMEOUT',
      'Another gateway replica is still running the call with this idempotency key; retry it later with the same key.',
    );
  }

  private pruneNowAndThen(): void {
    if (++this.claims % PRUNE_EVERY_CLAIMS !== 0) return;
    void this.options.repository.prune().catch((e: unknown) => this.report(e));
  }

  private report(error: unknown): void {
    this.options.onerror?.(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The store's key of `key` for `principal`: hashed, so no key a client picks reaches SQL text as is. */
function storeKey(principal: string, key: string): string {
  return createHash('sha256').update(principal).update('\u0000').update(key).digest('base64url');
}
