import type { ServerEvent } from '../client/connection-types.js';
import { describeError } from '../core/errors.js';
import type { EventRepository, StoredEvent } from '../storage/ports.js';

/**
 * Stored server notifications. The producer side keeps what servers send (`store`): appends
 * are batched by the repository, and what waits to be written is bounded, so a server that
 * floods notifications faster than the store can take them costs dropped events — counted,
 * and announced by a marker event of the method `DROPPED_EVENTS_METHOD` once writing catches
 * up — never unbounded memory. The consumer side: take a batch (it becomes `delivered`),
 * acknowledge it, or have batches handed over on an interval (for background agents). A batch
 * whose handler throws goes back to pending, so the next round delivers it again.
 */
export interface EventFeedOptions {
  /** Appends that may wait for the store at once before events are dropped. Default 10,000. */
  readonly maxPending?: number;
  /** Told when an event cannot be stored (once per burst of drops, and on each store error). */
  readonly onProblem?: (server: string, text: string) => void;
}

/** The method of the event that stands for events dropped while the store fell behind. */
export const DROPPED_EVENTS_METHOD = 'switchboard/events_dropped';

export class EventFeed {
  private pending = 0;
  /** Events dropped since the last marker, by server. */
  private readonly dropped = new Map<string, number>();
  private readonly maxPending: number;

  constructor(
    private readonly events: EventRepository,
    private readonly options: EventFeedOptions = {},
  ) {
    this.maxPending = options.maxPending ?? 10_000;
  }

  /** Stores a server's notification as pending; never throws, never waits. */
  store(event: ServerEvent): void {
    if (this.pending >= this.maxPending) {
      const count = (this.dropped.get(event.server) ?? 0) + 1;
      this.dropped.set(event.server, count);
      if (count === 1)
        this.options.onProblem?.(event.server, 'events arrive faster than they can be stored; dropping some');
      return;
    }
    const marker = this.dropped.get(event.server);
    if (marker !== undefined) {
      this.dropped.delete(event.server);
      this.append({
        server: event.server,
        method: DROPPED_EVENTS_METHOD,
        params: { count: marker },
        receivedAt: event.receivedAt,
      });
    }
    this.append(event);
  }

  private append(event: Pick<ServerEvent, 'server' | 'method' | 'params' | 'receivedAt'>): void {
    this.pending++;
    this.events
      .append({
        server: event.server,
        method: event.method,
        params: event.params,
        receivedAt: event.receivedAt,
      })
      .catch((error: unknown) =>
        this.options.onProblem?.(event.server, `could not store event: ${describeError(error)}`),
      )
      .finally(() => {
        this.pending--;
      });
  }

  take(limit = 100): Promise<StoredEvent[]> {
    return this.events.takePending(limit);
  }

  ack(ids: readonly number[]): Promise<number> {
    return this.events.ack(ids);
  }

  /** Puts taken events back to pending (their handler did not finish), for the next taker. */
  release(ids: readonly number[]): Promise<number> {
    return this.events.release(ids);
  }

  /** Calls `handler` with each batch every `intervalMs`; returns a stop function. */
  poll(
    handler: (events: StoredEvent[]) => Promise<void> | void,
    options: { intervalMs: number },
  ): () => void {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      let batch: StoredEvent[] = [];
      try {
        batch = await this.take();
        if (batch.length > 0) {
          await handler(batch);
          await this.ack(batch.map((e) => e.id));
        }
      } catch {
        // At-least-once: what the handler did not finish is delivered again next round.
        await this.events.release(batch.map((e) => e.id)).catch(() => undefined);
      } finally {
        running = false;
      }
    }, options.intervalMs);
    return () => clearInterval(timer);
  }
}
