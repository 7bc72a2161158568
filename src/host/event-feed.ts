import type { EventRepository, StoredEvent } from '../storage/ports.js';

/**
 * The consumer side of stored server notifications: take a batch (it becomes `delivered`),
 * acknowledge it, or have batches handed over on an interval (for background agents). A batch
 * whose handler throws is not acknowledged, so it is not lost.
 */
export class EventFeed {
  constructor(private readonly events: EventRepository) {}

  take(limit = 100): Promise<StoredEvent[]> {
    return this.events.takePending(limit);
  }

  ack(ids: readonly number[]): Promise<number> {
    return this.events.ack(ids);
  }

  /** Calls `handler` with each batch every `intervalMs`; returns a stop function. */
  every(
    handler: (events: StoredEvent[]) => Promise<void> | void,
    options: { intervalMs: number },
  ): () => void {
    let running = false;
    const timer = setInterval(async () => {
      if (running) return;
      running = true;
      try {
        const batch = await this.take();
        if (batch.length > 0) {
          await handler(batch);
          await this.ack(batch.map((e) => e.id));
        }
      } catch {
        // The batch stays delivered but unacknowledged; the next call of the handler is a new batch.
      } finally {
        running = false;
      }
    }, options.intervalMs);
    return () => clearInterval(timer);
  }
}
