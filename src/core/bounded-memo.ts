/**
 * Results of a pure function by key, kept for the few keys a busy server sees over and over
 * (request URLs, Host headers, client addresses, message shapes), so each is worked out once
 * instead of per request. At most `max` are kept; past that all are forgotten at once, so keys
 * a client makes up cannot grow it, and cost no more than having no memo.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The value kept for `key`, if any. */
  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Keeps `value` for `key`, and returns it. */
  remember(key: string, value: V): V {
    if (this.values.size >= this.max) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  /** How many values are kept. */
  get size(): number {
    return this.values.size;
  }
}
