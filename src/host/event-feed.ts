import type { EventRepository, StoredEvent } from '../storage/ports.js';

/**
 * The consumer side of stored server notifications: take a batch (it becomes `delivered`),
 * acknowledge it, or have batches handed over on an interval (for background agents). A batch
 * whose handler throws goes back to pending, so the next round delivers it again.
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
