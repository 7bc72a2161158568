import { formatMs, formatRate, formatRatio, maxOf, type ServerCallStats, seriesOf } from './series.js';
import { Sparkline } from './sparkline.js';

/**
 * A server's recent tool calls as three sparklines — call rate, p50/p99 latency, error rate —
 * each with its last-minute figure. Drawn from `GET /api/metrics/calls`, which the host keeps
 * in process, so it shows whether or not OpenTelemetry is on.
 */
export function CallCharts(props: {
  readonly server: string;
  readonly stats: ServerCallStats | undefined;
  readonly slotSeconds: number;
  readonly large?: boolean;
}) {
  const { stats, server } = props;
  const size = props.large ? { width: 240, height: 48 } : {};
  if (!stats || stats.points.every((p) => p.calls === 0 && p.refused === 0)) {
    return (
      <p class="muted call-charts-empty" data-testid={`calls-${server}`}>
        No tool calls in the last {Math.round((props.slotSeconds * (stats?.points.length ?? 60)) / 60)}{' '}
        minutes.
      </p>
    );
  }
  const series = seriesOf(stats, props.slotSeconds);
  const last = stats.lastMinute;
  return (
    <section class="call-charts" data-testid={`calls-${server}`} aria-label={`Recent calls of ${server}`}>
      <Sparkline
        label="Calls"
        value={formatRate(last.rate)}
        series={[series.rate]}
        max={maxOf(0.1, series.rate)}
        testId={`calls-rate-${server}`}
        {...size}
      />
      <Sparkline
        label="p50 / p99"
        value={`${formatMs(last.p50)} / ${formatMs(last.p99)}`}
        series={[series.p50, series.p99]}
        max={maxOf(1, series.p99, series.p50)}
        testId={`calls-latency-${server}`}
        {...size}
      />
      <Sparkline
        label="Errors"
        value={formatRatio(last.errorRate)}
        series={[series.errorRate]}
        max={1}
        testId={`calls-errors-${server}`}
        {...size}
      />
    </section>
  );
}
