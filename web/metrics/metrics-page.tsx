import { ErrorBanner } from '../shell/error-banner.js';
import { CallCharts } from './call-charts.js';
import { formatMs, formatRate, formatRatio } from './series.js';
import { useCallStats } from './use-call-stats.js';

/**
 * Every server's recent tool calls, larger than on the servers page: rate, p50/p99 latency
 * and error rate over the host's window, live. For longer history and alerting, the gateway's
 * `/metrics` and OTLP export (docs/observability.md).
 */
export function MetricsPage() {
  const { stats, error } = useCallStats();
  const servers = stats?.servers ?? [];
  return (
    <section aria-labelledby="metrics-title">
      <div class="page-header">
        <h1 id="metrics-title">Metrics</h1>
      </div>
      <ErrorBanner error={error} />
      {!stats && !error && <p class="muted">Loading…</p>}
      {stats && servers.length === 0 && (
        <p class="muted">No tool calls yet. Figures show here once a server has been called.</p>
      )}
      {stats && (
        <p class="muted">
          The last {Math.round((stats.slotSeconds * (servers[0]?.points.length ?? 60)) / 60)} minutes in{' '}
          {stats.slotSeconds}-second steps; figures are over the last minute.
        </p>
      )}
      <ul class="metrics-list">
        {servers.map((s) => (
          <li key={s.server} class="card metrics-card" data-testid={`metrics-${s.server}`}>
            <h2>{s.server}</h2>
            <CallCharts server={s.server} stats={s} slotSeconds={stats!.slotSeconds} large />
            <p class="muted">
              {s.lastMinute.calls} calls in the last minute ({formatRate(s.lastMinute.rate)}), p50{' '}
              {formatMs(s.lastMinute.p50)}, p99 {formatMs(s.lastMinute.p99)}, errors{' '}
              {formatRatio(s.lastMinute.errorRate)}.
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
