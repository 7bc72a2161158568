/**
 * The seeded randomness of the fuzz tests: a small PRNG (mulberry32: 32 bits of state, fast,
 * and the same sequence on every machine for one seed), a seed and a budget that an
 * environment variable can override for a longer run, and generators of hostile values.
 *
 *   SWITCHBOARD_FUZZ_SEED=1234 SWITCHBOARD_FUZZ_RUNS=200000 SWITCHBOARD_FUZZ_MS=600000 \
 *     npx vitest run test/security
 *
 * A failure names the seed and the case, so the run can be repeated exactly.
 */

/** One random source. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A string of `length` characters drawn from printable ASCII and some odd Unicode. */
  text(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++)
      out += this.chance(0.9) ? String.fromCharCode(32 + this.int(95)) : this.pick(ODD);
    return out;
  }

  /** Random bytes. */
  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }
}

/** Characters that break naive code: controls, separators, look-alikes, surrogates, a BOM. */
export const ODD = [
  '\u0000',
  '\u0007',
  '\n',
  '\r',
  '\t',
  '"',
  '\\',
  '/',
  '..',
  '\u2028',
  '\u2029',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '\u0430',
  'é',
  '日本',
  '😀',
  '$',
  '${',
  '${X',
  '__proto__',
  'constructor',
];

/** A hostile JSON value of a random kind: wrong types, extremes, prototype keys, deep nesting. */
export function hostileValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 3 ? 10 : 14)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -1e308, 2 ** 53, 86_401, 0.0001, -0]);
    case 3:
      return r.text(r.int(20));
    case 4:
      return r.text(r.chance(0.1) ? 100_000 : 300);
    case 5:
      return r.pick(ODD);
    case 6:
      return r.pick(['stdio', 'http', 'sse', 'auto', 'legacy', '2025-06-18', 'oauth', 'bearer', 'api_key']);
    case 7:
      return r.pick(['http://127.0.0.1:9/mcp', 'https://h/mcp', 'ftp://h', 'not a url', '${URL}', '']);
    case 8:
      return nested(r.int(200));
    case 9:
      return [];
    case 10:
      return Array.from({ length: r.int(4) }, () => hostileValue(r, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = r.int(4); i > 0; i--) {
        Object.defineProperty(object, r.chance(0.3) ? r.pick(ODD) : r.text(1 + r.int(8)), {
          value: hostileValue(r, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
  }
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { x: value };
  return value;
}

/**
 * Cases every fuzz loop runs whatever the clock says (unless told fewer): a loaded machine
 * makes the time budget buy fewer cases, and a run of almost none would pass for nothing.
 */
export const MIN_CASES = 200;

/** The fuzz settings: seed, number of cases and time budget, each overridable. */
export function fuzzSettings(name: string, defaults: { runs: number; ms: number }) {
  const seed = Number(process.env.SWITCHBOARD_FUZZ_SEED ?? 20_261_202);
  const runs = Number(process.env.SWITCHBOARD_FUZZ_RUNS ?? defaults.runs);
  const ms = Number(process.env.SWITCHBOARD_FUZZ_MS ?? defaults.ms);
  // Printed so that a failing run can be repeated exactly.
  console.log(`${name}: seed ${seed}, up to ${runs} cases in ${ms} ms (SWITCHBOARD_FUZZ_SEED/RUNS/MS)`);
  return { seed, runs, ms };
}

/** A short, printable excerpt of an input, for a failure message. */
export function excerpt(input: string | Buffer): string {
  const text = typeof input === 'string' ? input : input.toString('latin1');
  const shown = JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  return `${shown} (${text.length} characters)`;
}
