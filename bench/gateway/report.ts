import { fmt, median } from '../stats.js';
import { CONCURRENCY, type Concurrency, type RoundFigures } from './measure.js';
import { SIZE_LABELS, type SizeKey } from './payloads.js';
import type { Era } from './raw-client.js';
import { TARGET_LABELS, type TargetKey } from './targets.js';

export type Driver = 'raw' | 'sdk';

/** One cell (result size × target × era × driver) over the rounds it ran. */
export interface CellResult {
  readonly size: SizeKey;
  readonly target: TargetKey;
  readonly era: Era;
  readonly driver: Driver;
  status: 'ok' | 'n/a' | 'failed' | 'not run';
  note?: string;
  /** Too slow per call to measure fully: one round, sequential calls only. */
  light?: boolean;
  readonly rounds: RoundFigures[];
}

/** Medians over the rounds; RSS is the largest seen in any round. */
export interface CellSummary {
  readonly size: SizeKey;
  readonly target: TargetKey;
  readonly era: Era;
  readonly driver: Driver;
  readonly status: CellResult['status'];
  readonly note?: string;
  readonly rounds: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly callsPerSecond?: Readonly<Partial<Record<Concurrency, number>>>;
  readonly rssMiB?: number;
  readonly childrenRssMiB?: number;
  /** Median CPU per call at c=64 (µs): the target's process, and its children. */
  readonly cpuUsPerCall?: number;
  readonly childrenCpuUsPerCall?: number;
}

type ByEra = Partial<Record<Era, { value: number; detail: string }>>;

/** One target of the issue for one result size, judged on the raw driver's figures. */
export interface Goal {
  readonly size: SizeKey;
  readonly name: string;
  readonly target: string;
  readonly byEra: Readonly<Partial<Record<Era, { value: number; detail: string }>>>;
  readonly met: boolean | undefined;
}

export const ERA_TITLES: Readonly<Record<Era, string>> = {
  legacy: '2025-11-25 (sessions: initialize → Mcp-Session-Id → tools/call)',
  modern: '2026-07-28 (stateless: _meta envelope, Mcp-Method/Mcp-Name headers)',
};

const ADDED_P50_MAX_MS = 0.3;
const THROUGHPUT_MIN_RATIO = 2;
const GATEWAY_RSS_MAX_MIB = 150;

export function summarize(cell: CellResult): CellSummary {
  const base = {
    size: cell.size,
    target: cell.target,
    era: cell.era,
    driver: cell.driver,
    status: cell.status === 'ok' && cell.rounds.length === 0 ? ('not run' as const) : cell.status,
    ...(cell.note !== undefined && { note: cell.note }),
    rounds: cell.rounds.length,
  };
  if (cell.rounds.length === 0) return base;
  const rss = cell.rounds.flatMap((r) => (r.rss ? [r.rss] : []));
  const cpu = cell.rounds.flatMap((r) => (r.cpuUs ? [r.cpuUs] : []));
  return {
    ...base,
    p50Ms: median(cell.rounds.map((r) => r.p50)),
    p99Ms: median(cell.rounds.map((r) => r.p99)),
    callsPerSecond: Object.fromEntries(
      CONCURRENCY.flatMap((c) => {
        const rates = cell.rounds.flatMap((r) => (r.throughput[c] === undefined ? [] : [r.throughput[c]]));
        return rates.length > 0 ? [[c, median(rates)]] : [];
      }),
    ),
    ...(rss.length > 0 && {
      rssMiB: Math.max(...rss.map((r) => r.mainKiB)) / 1024,
      childrenRssMiB: Math.max(...rss.map((r) => r.childrenKiB)) / 1024,
    }),
    ...(cpu.length > 0 && {
      cpuUsPerCall: median(cpu.map((c) => c.main)),
      childrenCpuUsPerCall: median(cpu.map((c) => c.children)),
    }),
  };
}

/** The three targets of the issue for each result size, from the raw driver's cells. */
export function judgeGoals(
  cells: readonly CellSummary[],
  eras: readonly Era[],
  sizes: readonly SizeKey[],
): Goal[] {
  return sizes.flatMap((size) =>
    judgeSize(
      cells.filter((c) => c.size === size),
      eras,
      size,
    ),
  );
}

function judgeSize(cells: readonly CellSummary[], eras: readonly Era[], size: SizeKey): Goal[] {
  const raw = (target: TargetKey, era: Era) =>
    cells.find((c) => c.target === target && c.era === era && c.driver === 'raw' && c.p50Ms !== undefined);
  const added: ByEra = {};
  const ratio: ByEra = {};
  const rss: ByEra = {};
  for (const era of eras) {
    const floor = raw('b', era);
    const gateway = raw('c', era);
    if (floor && gateway) {
      added[era] = {
        value: gateway.p50Ms! - floor.p50Ms!,
        detail: `${fmt(gateway.p50Ms!, 3)} − ${fmt(floor.p50Ms!, 3)} ms`,
      };
    }
    const rivals = (['d', 'e'] as const).flatMap((k) => {
      const cell = raw(k, era);
      const rate = cell?.callsPerSecond?.[64];
      return rate === undefined ? [] : [{ key: k, rate }];
    });
    const best = rivals.sort((x, y) => y.rate - x.rate)[0];
    const gatewayRate = gateway?.callsPerSecond?.[64];
    if (gatewayRate !== undefined && best) {
      ratio[era] = {
        value: gatewayRate / best.rate,
        detail: `${fmt(gatewayRate, 0)} vs ${TARGET_LABELS[best.key]} ${fmt(best.rate, 0)} calls/s`,
      };
    }
    if (gateway?.rssMiB !== undefined) {
      rss[era] = {
        value: gateway.rssMiB,
        detail: `upstream child ${fmt(gateway.childrenRssMiB ?? Number.NaN, 1)} MiB`,
      };
    }
  }
  const verdict = (byEra: Goal['byEra'], ok: (v: number) => boolean) => {
    const values = eras.map((e) => byEra[e]?.value);
    if (values.some((v) => v === undefined)) return undefined;
    return values.every((v) => ok(v!));
  };
  return [
    {
      size,
      name: '(1) added p50 at c=1, switchboard serve − SDK HTTP floor',
      target: `≤ ${ADDED_P50_MAX_MS} ms`,
      byEra: added,
      met: verdict(added, (v) => v <= ADDED_P50_MAX_MS),
    },
    {
      size,
      name: '(2) calls/s at c=64, switchboard serve ÷ better of mcp-proxy, supergateway',
      target: `≥ ${THROUGHPUT_MIN_RATIO}×`,
      byEra: ratio,
      met: verdict(ratio, (v) => v >= THROUGHPUT_MIN_RATIO),
    },
    {
      size,
      name: '(3) switchboard serve RSS at c=64 (its own process)',
      target: `≤ ${GATEWAY_RSS_MAX_MIB} MiB`,
      byEra: rss,
      met: verdict(rss, (v) => v <= GATEWAY_RSS_MAX_MIB),
    },
  ];
}

/** The tables and the goal lines, as printed. */
export function renderReport(
  cells: readonly CellSummary[],
  eras: readonly Era[],
  sizes: readonly SizeKey[],
  goals: readonly Goal[],
): string {
  return sizes
    .map((size) =>
      renderSize(
        cells.filter((c) => c.size === size),
        eras,
        size,
        goals.filter((g) => g.size === size),
      ),
    )
    .join('\n');
}

function renderSize(
  cells: readonly CellSummary[],
  eras: readonly Era[],
  size: SizeKey,
  goals: readonly Goal[],
): string {
  const out: string[] = ['', `=== ${SIZE_LABELS[size]} ===`];
  const header = [
    'target'.padEnd(24),
    'driver',
    'p50 ms'.padStart(8),
    'p99 ms'.padStart(8),
    ...CONCURRENCY.map((c) => `c=${c} /s`.padStart(9)),
    'RSS MiB'.padStart(8),
    ' (children)',
    ' CPU µs/call (children)',
  ].join(' ');
  for (const era of eras) {
    out.push('', ERA_TITLES[era], header, '-'.repeat(header.length));
    for (const cell of cells.filter((c) => c.era === era)) {
      const name = cell.driver === 'raw' ? `(${cell.target}) ${TARGET_LABELS[cell.target]}` : '';
      const row = [name.padEnd(24), cell.driver.padEnd(6)];
      if (cell.p50Ms === undefined) {
        row.push(`${cell.status}${cell.note ? `: ${firstLine(cell.note)}` : ''}`);
      } else {
        row.push(
          fmt(cell.p50Ms, 3).padStart(8),
          fmt(cell.p99Ms!, 3).padStart(8),
          ...CONCURRENCY.map((c) => {
            const rate = cell.callsPerSecond?.[c];
            return (rate === undefined ? '—' : fmt(rate, 0)).padStart(9);
          }),
          (cell.rssMiB === undefined ? '—' : fmt(cell.rssMiB, 1)).padStart(8),
          cell.childrenRssMiB ? ` (${fmt(cell.childrenRssMiB, 1)})` : '',
          cell.cpuUsPerCall === undefined
            ? ''
            : ` ${fmt(cell.cpuUsPerCall, 0)}${cell.childrenCpuUsPerCall ? ` (${fmt(cell.childrenCpuUsPerCall, 0)})` : ''}`,
          cell.status === 'failed'
            ? `  failed after ${cell.rounds} rounds: ${firstLine(cell.note ?? '')}`
            : cell.note
              ? `  ${firstLine(cell.note)}`
              : '',
        );
      }
      out.push(row.join(' ').trimEnd());
    }
  }
  out.push('', `Targets (raw-HTTP driver, ${SIZE_LABELS[size]}):`);
  for (const goal of goals) {
    const perEra = eras
      .map((era) => {
        const v = goal.byEra[era];
        if (!v) return `${era} n/a`;
        const value = goal.target.endsWith('×')
          ? `${fmt(v.value)}×`
          : goal.target.endsWith('ms')
            ? `${fmt(v.value, 3)} ms`
            : `${fmt(v.value, 1)} MiB`;
        return `${era} ${value} (${v.detail})`;
      })
      .join('; ');
    const verdict = goal.met === undefined ? 'n/a' : goal.met ? 'met' : 'NOT MET';
    out.push(`${goal.name}: ${perEra} — target ${goal.target}: ${verdict}`);
  }
  return out.join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}
