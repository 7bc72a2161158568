import type { BatchObservableCallback, Observable } from '@opentelemetry/api';
import { meterBound } from '../core/telemetry/meter-bound.js';
import { SWITCHBOARD_SERVER, SWITCHBOARD_STATE } from '../core/telemetry/semconv.js';
import type { Host } from '../host/host.js';

/**
 * The gateway's gauges, observed when a reader collects (a scrape of `/metrics`, an OTLP
 * push): sessions open, and each upstream server's state — one series per server whose
 * `switchboard.upstream.state` label is its current state, valued 1, as Prometheus exporters
 * commonly show an enum. Costs nothing between collections, and nothing at all without an SDK.
 */
export function watchGateway(host: Host, sessions: () => number): { stop(): void } {
  const { on, instruments } = gauges();
  if (!on) return { stop: () => undefined };
  const observe: BatchObservableCallback = (result) => {
    result.observe(instruments.sessions, sessions());
    for (const server of host.servers()) {
      result.observe(instruments.state, 1, {
        [SWITCHBOARD_SERVER]: server.name,
        [SWITCHBOARD_STATE]: server.state,
      });
    }
  };
  const observables: Observable[] = [instruments.sessions, instruments.state];
  instruments.meter.addBatchObservableCallback(observe, observables);
  return { stop: () => instruments.meter.removeBatchObservableCallback(observe, observables) };
}

const gauges = meterBound((meter) => ({
  meter,
  sessions: meter.createObservableUpDownCounter('switchboard.gateway.sessions', {
    description: 'MCP sessions open on the gateway (2025-era Streamable HTTP and 2024-11-05 SSE).',
    unit: '{session}',
  }),
  state: meter.createObservableGauge('switchboard.upstream.state', {
    description: "1 for each upstream server's current state (the label), by server.",
    unit: '1',
  }),
}));
