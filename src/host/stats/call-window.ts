/**
 * Recent tool calls per server, kept in process whether or not OpenTelemetry is on: what the
 * dashboard's charts draw (call rate, p50/p99 latency, error rate). A ring of fixed slots
 * (default 60 × 5 s: the last five minutes) per server, each with counts and a log-scale
 * latency histogram, so recording is a map lookup, one `Math.log` and three increments, and
 * memory is fixed (60 slots × 48 bins × 4 bytes ≈ 11 KiB a server). Percentiles are read off
 * the histogram: the upper edge of the bin the rank falls in, at most 25 % above the true
 * value (bins grow by 1.25×). Pure: time comes from `now`.
 */

/** How a call ended, as the charts count it. */
export type CallOutcome = 'ok' | 'error' | 'refused';

export interface CallWindowOptions {
  /** Seconds a slot covers. Default 5. */
  readonly slotSeconds?: number;
  /** Slots kept. Default 60. */
  readonly slots?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/** One slot of one server, as the API serves it. */
export interface CallPoint {
  /** The slot's start, ms since the epoch. */
  readonly t: number;
  readonly calls: number;
  readonly errors: number;
  readonly refused: number;
  /** Milliseconds; `null` when the slot had no answered call. */
  readonly p50: number | null;
  readonly p99: number | null;
}

/** One server's recent calls: its slots oldest first, and totals over the last minute. */
export interface ServerCalls {
  readonly server: string;
  readonly points: readonly CallPoint[];
  readonly lastMinute: {
    readonly calls: number;
    /** Calls a second. */
    readonly rate: number;
    /** Errors over answered calls (refusals are not errors of the server), 0..1; `null` without calls. */
    readonly errorRate: number | null;
    readonly p50: number | null;
    readonly p99: number | null;
  };
}

const BINS = 48;
/** The upper edge of bin 0 in ms; bin i ends at `FIRST_EDGE_MS * GROWTH^i` (the last one is open). */
const FIRST_EDGE_MS = 0.5;
const GROWTH = 1.25;
const LOG_GROWTH = Math.log(GROWTH);

/** The bin of a duration in ms. */
export function binOf(ms: number): number {
  if (!(ms > FIRST_EDGE_MS)) return 0;
  return Math.min(BINS - 1, Math.ceil(Math.log(ms / FIRST_EDGE_MS) / LOG_GROWTH));
}

/** The upper edge of bin `i` in ms (the open last bin reports its lower edge). */
export function edgeOf(i: number): number {
  return FIRST_EDGE_MS * GROWTH ** Math.min(i, BINS - 2);
}

class ServerRing {
  /** Which slot number (time / slot length) each ring position holds; -1: none yet. */
  readonly slot: Float64Array;
  readonly calls: Uint32Array;
  readonly errors: Uint32Array;
  readonly refused: Uint32Array;
  readonly bins: Uint32Array;

  constructor(readonly size: number) {
    this.slot = new Float64Array(size).fill(-1);
    this.calls = new Uint32Array(size);
    this.errors = new Uint32Array(size);
    this.refused = new Uint32Array(size);
    this.bins = new Uint32Array(size * BINS);
  }

  /** The ring position of slot number `n`, cleared if it held an older slot. */
  at(n: number): number {
    const i = n % this.size;
    if (this.slot[i] !== n) {
      this.slot[i] = n;
      this.calls[i] = 0;
      this.errors[i] = 0;
      this.refused[i] = 0;
      this.bins.fill(0, i * BINS, (i + 1) * BINS);
    }
    return i;
  }
}

export class CallWindow {
  private readonly slotMs: number;
  private readonly size: number;
  private readonly now: () => number;
  private readonly rings = new Map<string, ServerRing>();

  constructor(options: CallWindowOptions = {}) {
    this.slotMs = (options.slotSeconds ?? 5) * 1000;
    this.size = Math.max(2, options.slots ?? 60);
    this.now = options.now ?? Date.now;
  }

  /** Records one call of `server` that took `ms` and ended as `outcome`. */
  record(server: string, ms: number, outcome: CallOutcome): void {
    let ring = this.rings.get(server);
    if (ring === undefined) {
      ring = new ServerRing(this.size);
      this.rings.set(server, ring);
    }
    const i = ring.at(Math.floor(this.now() / this.slotMs));
    if (outcome === 'refused') {
      ring.refused[i]!++;
      return;
    }
    ring.calls[i]!++;
    if (outcome === 'error') ring.errors[i]!++;
    ring.bins[i * BINS + binOf(ms)]!++;
  }

  /** Forgets a server (it was removed). */
  forget(server: string): void {
    this.rings.delete(server);
  }

  /** The servers' recent calls (`only`: just these names), each with every slot of the window. */
  snapshot(only?: ReadonlySet<string>): { readonly slotSeconds: number; readonly servers: ServerCalls[] } {
    const current = Math.floor(this.now() / this.slotMs);
    const perMinute = Math.max(1, Math.round(60_000 / this.slotMs));
    const servers: ServerCalls[] = [];
    for (const [server, ring] of this.rings) {
      if (only && !only.has(server)) continue;
      const points: CallPoint[] = [];
      const minute = { calls: 0, errors: 0, bins: new Uint32Array(BINS) };
      for (let n = current - this.size + 1; n <= current; n++) {
        const i = n % this.size;
        const held = n >= 0 && ring.slot[i] === n;
        const bins = held ? ring.bins.subarray(i * BINS, (i + 1) * BINS) : undefined;
        const calls = held ? ring.calls[i]! : 0;
        points.push({
          t: n * this.slotMs,
          calls,
          errors: held ? ring.errors[i]! : 0,
          refused: held ? ring.refused[i]! : 0,
          p50: bins ? percentile(bins, calls, 0.5) : null,
          p99: bins ? percentile(bins, calls, 0.99) : null,
        });
        if (bins && n > current - perMinute) {
          minute.calls += calls;
          minute.errors += ring.errors[i]!;
          for (let b = 0; b < BINS; b++) minute.bins[b]! += bins[b]!;
        }
      }
      servers.push({
        server,
        points,
        lastMinute: {
          calls: minute.calls,
          rate: minute.calls / ((perMinute * this.slotMs) / 1000),
          errorRate: minute.calls > 0 ? minute.errors / minute.calls : null,
          p50: percentile(minute.bins, minute.calls, 0.5),
          p99: percentile(minute.bins, minute.calls, 0.99),
        },
      });
    }
    servers.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
    return { slotSeconds: this.slotMs / 1000, servers };
  }
}

/** The `q` quantile of `count` durations binned in `bins`, in ms (the bin's upper edge); null for none. */
export function percentile(bins: ArrayLike<number>, count: number, q: number): number | null {
  if (count === 0) return null;
  const rank = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (let b = 0; b < BINS; b++) {
    seen += bins[b]!;
    if (seen >= rank) return round(edgeOf(b));
  }
  return round(edgeOf(BINS - 1));
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
