import type { ApiCallStats } from '../../src/gateway/api/api-types.js';

/**
 * The charts' numbers from `GET /api/metrics/calls`: per slot, calls a second, error rate
 * and latency percentiles, and the SVG path of a sparkline through them. Pure.
 */
export type ServerCallStats = ApiCallStats['servers'][number];

export interface ChartSeries {
  /** Calls a second, per slot. */
  readonly rate: readonly number[];
  /** Errors over answered calls, per slot; null where a slot had none. */
  readonly errorRate: readonly (number | null)[];
  readonly p50: readonly (number | null)[];
  readonly p99: readonly (number | null)[];
}

export function seriesOf(stats: ServerCallStats, slotSeconds: number): ChartSeries {
  return {
    rate: stats.points.map((p) => p.calls / slotSeconds),
    errorRate: stats.points.map((p) => (p.calls > 0 ? p.errors / p.calls : null)),
    p50: stats.points.map((p) => p.p50),
    p99: stats.points.map((p) => p.p99),
  };
}

/**
 * The `d` of a polyline through `values` in a `width` × `height` box, from 0 at the bottom to
 * `max` at the top; a null breaks the line (no calls there), so a gap is drawn as a gap.
 */
export function sparkPath(
  values: readonly (number | null)[],
  width: number,
  height: number,
  max: number,
): string {
  if (values.length === 0) return '';
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const top = max > 0 ? max : 1;
  let d = '';
  let drawing = false;
  values.forEach((value, i) => {
    if (value === null || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const x = round(i * step);
    const y = round(height - (Math.min(value, top) / top) * height);
    d += `${drawing ? 'L' : 'M'}${x} ${y}`;
    // A point alone (no neighbour with a value) is a dot: a zero-length segment, round-capped.
    const next = values[i + 1];
    if (!drawing && (next === undefined || next === null)) d += 'h0';
    drawing = true;
  });
  return d;
}

/** The largest value, for a shared scale (at least `floor`, so a flat zero line sits at the bottom). */
export function maxOf(floor: number, ...series: readonly (readonly (number | null)[])[]): number {
  let max = floor;
  for (const values of series) for (const v of values) if (v !== null && v > max) max = v;
  return max;
}

/** A duration in ms as people read it. */
export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function formatRate(perSecond: number): string {
  if (perSecond === 0) return '0/s';
  if (perSecond < 0.1) return `${(perSecond * 60).toFixed(1)}/min`;
  return `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond)}/s`;
}

export function formatRatio(ratio: number | null): string {
  return ratio === null ? '—' : `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.01 ? 1 : 0)} %`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
