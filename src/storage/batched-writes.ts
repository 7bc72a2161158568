/**
 * Gathers single-row writes and hands them to `write` together, soon after (by default after
 * the current I/O events), so a burst of appends costs one statement instead of one each.
 * Each `add` still resolves with its row's id once that row is written, or rejects with why not.
 */
export interface BatchedWritesOptions<T> {
  /** Writes `items` in one statement; resolves with their ids in the same order. */
  readonly write: (items: readonly T[]) => Promise<readonly number[]>;
  /** Writes `item` alone; used for every item of a batch whose `write` failed. */
  readonly writeOne: (item: T) => Promise<number>;
  /** Items held at most before they are written at once. Default 128. */
  readonly maxBatch?: number;
  /** Runs `flush` soon; default `setImmediate`. Injected in tests. */
  readonly defer?: (flush: () => void) => void;
}

interface Waiting<T> {
  readonly item: T;
  readonly resolve: (id: number) => void;
  readonly reject: (error: unknown) => void;
}

/** A queue of pending single-row writes; see `BatchedWritesOptions`. */
export class BatchedWrites<T> {
  private queue: Waiting<T>[] = [];
  private scheduled = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Items handed to a write that has not finished. */
  private writing = 0;
  private readonly maxBatch: number;
  private readonly defer: (flush: () => void) => void;

  constructor(private readonly options: BatchedWritesOptions<T>) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 128);
    this.defer = options.defer ?? ((run) => setImmediate(run));
  }

  /** Queues `item`; resolves with its id once written. */
  add(item: T): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.start();
      else if (!this.scheduled) {
        this.scheduled = true;
        this.defer(() => {
          this.scheduled = false;
          this.start();
        });
      }
    });
  }

  /** Items not yet written: queued, or in a write under way (the audit queue depth metric). */
  get depth(): number {
    return this.queue.length + this.writing;
  }

  /** Writes everything queued now and waits for every write under way: reads see it all after. */
  async flush(): Promise<void> {
    this.start();
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  private start(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.writing += batch.length;
    const running = this.run(batch).finally(() => {
      this.writing -= batch.length;
      this.inFlight.delete(running);
    });
    this.inFlight.add(running);
  }

  private async run(batch: readonly Waiting<T>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const ids = await this.options.write(batch.map((w) => w.item));
        if (ids.length !== batch.length)
          throw new Error(`${batch.length} rows were written, but ${ids.length} ids came back.`);
        for (const [i, waiting] of batch.entries()) waiting.resolve(ids[i]!);
        return;
      } catch {
        // One bad row must not take the others with it: each is tried alone, and fails alone.
      }
    }
    for (const waiting of batch) {
      try {
        waiting.resolve(await this.options.writeOne(waiting.item));
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}
