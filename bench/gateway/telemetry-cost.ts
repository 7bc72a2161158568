import { fmt, median } from '../stats.js';
import type { SizeKey } from './payloads.js';
import type { Era } from './raw-client.js';
import type { CellResult } from './report.js';
import { TARGET_LABELS, type TargetKey } from './targets.js';

/**
 * What OpenTelemetry costs the gateway, from one run's interleaved rounds: each telemetry
 * target (g: every span sampled, h: the default sampler) and the base-ref build (i) against
 * (c), the gateway with telemetry off, on the raw driver. Paired by round — round k of (g)
 * ran right after or before round k of (c) — so each ratio is taken per round and the median
 * of the ratios reported: drift on the machine hits both sides of a pair alike.
 *   throughput cost = 1 − median(rate_x / rate_c) at c=64; CPU cost = median(cpu_x / cpu_c) − 1
 * Goals: (g) ≤ 5 %, (h) ≤ 2 % on throughput; (i) is the "telemetry off: no change" check,
 * reported beside them (its cost is (c)'s over the base build, so a negative value is a gain).
 */
export interface TelemetryCost {
  readonly size: SizeKey;
  readonly era: Era;
  readonly target: TargetKey;
  readonly pairs: number;
  /** 1 − median per-round throughput ratio; for (i), (c) against the base: median(c/i) − 1 turned to a cost. */
  readonly throughputCost?: number;
  readonly cpuCost?: number;
  readonly goal?: number;
  readonly met?: boolean;
}

const GOALS: Partial<Record<TargetKey, number>> = { g: 0.05, h: 0.02 };

export function telemetryCosts(
  cells: readonly CellResult[],
  eras: readonly Era[],
  sizes: readonly SizeKey[],
): TelemetryCost[] {
  const out: TelemetryCost[] = [];
  const cell = (target: TargetKey, era: Era, size: SizeKey) =>
    cells.find((c) => c.target === target && c.era === era && c.size === size && c.driver === 'raw');
  for (const size of sizes) {
    for (const era of eras) {
      const off = cell('c', era, size);
      if (!off) continue;
      for (const target of ['g', 'h', 'i'] as const) {
        const on = cell(target, era, size);
        if (!on || on.rounds.length === 0 || off.rounds.length === 0) continue;
        // For (i) the question is what (c) costs over the base build: (c) is the "on" side.
        const [x, base] = target === 'i' ? [off, on] : [on, off];
        const n = Math.min(x.rounds.length, base.rounds.length);
        const rates: number[] = [];
        const cpus: number[] = [];
        for (let k = 0; k < n; k++) {
          const a = x.rounds[k]!;
          const b = base.rounds[k]!;
          const ra = a.throughput[64];
          const rb = b.throughput[64];
          if (ra !== undefined && rb !== undefined && rb > 0) rates.push(ra / rb);
          if (a.cpuUs && b.cpuUs && b.cpuUs.main > 0) cpus.push(a.cpuUs.main / b.cpuUs.main);
        }
        const throughputCost = rates.length > 0 ? 1 - median(rates) : undefined;
        const goal = GOALS[target];
        out.push({
          size,
          era,
          target,
          pairs: n,
          ...(throughputCost !== undefined && { throughputCost }),
          ...(cpus.length > 0 && { cpuCost: median(cpus) - 1 }),
          ...(goal !== undefined && { goal }),
          ...(goal !== undefined && throughputCost !== undefined && { met: throughputCost <= goal }),
        });
      }
    }
  }
  return out;
}

const pct = (v: number | undefined) => (v === undefined ? '—' : `${v >= 0 ? '+' : ''}${fmt(v * 100, 1)} %`);

export function renderTelemetryCosts(costs: readonly TelemetryCost[]): string {
  if (costs.length === 0) return '';
  const lines = [
    '',
    'Telemetry cost (raw driver, c=64, per-round ratios against (c) telemetry off, medians):',
  ];
  for (const c of costs) {
    const what =
      c.target === 'i'
        ? '(c) over (i) the base-ref build, both telemetry off'
        : `(${c.target}) ${TARGET_LABELS[c.target]}`;
    const judged =
      c.goal === undefined
        ? ''
        : ` — goal ≤ ${fmt(c.goal * 100, 0)} %: ${c.met === undefined ? '?' : c.met ? 'met' : 'NOT met'}`;
    lines.push(
      `  ${c.size} ${c.era}: ${what}: throughput cost ${pct(c.throughputCost)}, CPU/call ${pct(c.cpuCost)} (${c.pairs} pairs)${judged}`,
    );
  }
  return lines.join('\n');
}
