import type { BatchObservableCallback, Observable } from '@opentelemetry/api';
import { observeEventLoop } from '../core/telemetry/event-loop.js';
import { meterBound } from '../core/telemetry/meter-bound.js';
import { METRIC_AUDIT_QUEUE, SWITCHBOARD_SERVER, SWITCHBOARD_STATE } from '../core/telemetry/semconv.js';
import type { Host } from '../host/host.js';

/**
 * The gateway's gauges, observed when a reader collects (a scrape of `/metrics`, an OTLP
 * push): sessions open, the audit queue's depth, and each upstream server's state — one series per server whose
 * `switchboard.upstream.state` label is its current state, valued 1, as Prometheus exporters
 * commonly show an enum. Costs nothing between collections, and nothing at all without an SDK.
 */
export function watchGateway(host: Host, sessions: () => number): { stop(): void } {
  const { on, instruments } = gauges();
  if (!on) return { stop: () => undefined };
  // Event-loop delay on whichever SDK is registered, the app's own included (event-loop.ts).
  const stopLoop = observeEventLoop();
  const observe: BatchObservableCallback = (result) => {
    result.observe(instruments.sessions, sessions());
    result.observe(instruments.audit, host.governor.auditBacklog);
    for (const server of host.servers()) {
      result.observe(instruments.state, 1, {
        [SWITCHBOARD_SERVER]: server.name,
        [SWITCHBOARD_STATE]: server.state,
      });
    }
  };
  const observables: Observable[] = [instruments.sessions, instruments.state, instruments.audit];
  instruments.meter.addBatchObservableCallback(observe, observables);
  return {
    stop: () => {
      stopLoop();
      instruments.meter.removeBatchObservableCallback(observe, observables);
    },
  };
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
  audit: meter.createObservableUpDownCounter(METRIC_AUDIT_QUEUE, {
    description: 'Audit records appended and not yet committed to the store.',
    unit: '{record}',
  }),
}));
