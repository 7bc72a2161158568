import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import { meterBound } from './meter-bound.js';

/**
 * Event-loop delay as the Node.js runtime conventions name it (`nodejs.eventloop.delay.*`,
 * gauges in seconds; https://opentelemetry.io/docs/specs/semconv/runtime/nodejs-metrics/):
 * what a loaded gateway's callers wait before their request is even looked at. Observed on
 * whatever meter provider is global when it starts — Switchboard's own SDK, or the embedding
 * app's — so an app that brings its own SDK gets it too: the gateway starts it, and an app
 * that runs only the host calls `observeEventLoop()` itself once its SDK is registered.
 * Without a meter that records, nothing starts. Each call returns a stop; the histogram runs
 * while any caller still wants it.
 */
const gauges = meterBound((meter: Meter) => ({
  meter,
  p50: meter.createObservableGauge('nodejs.eventloop.delay.p50', {
    unit: 's',
    description: 'Event loop delay, median.',
  }),
  p90: meter.createObservableGauge('nodejs.eventloop.delay.p90', {
    unit: 's',
    description: 'Event loop delay, 90th percentile.',
  }),
  p99: meter.createObservableGauge('nodejs.eventloop.delay.p99', {
    unit: 's',
    description: 'Event loop delay, 99th percentile.',
  }),
  max: meter.createObservableGauge('nodejs.eventloop.delay.max', {
    unit: 's',
    description: 'Event loop delay, largest.',
  }),
  mean: meter.createObservableGauge('nodejs.eventloop.delay.mean', {
    unit: 's',
    description: 'Event loop delay, mean.',
  }),
}));

let running:
  | {
      users: number;
      histogram: IntervalHistogram;
      meter: Meter;
      callback: BatchObservableCallback;
      observables: Observable[];
    }
  | undefined;

/** Starts the event-loop delay gauges on the current global meter (see above); returns its stop. */
export function observeEventLoop(): () => void {
  const { on, instruments } = gauges();
  if (!on) return () => undefined;
  if (running === undefined || running.meter !== instruments.meter) {
    running?.meter.removeBatchObservableCallback(running.callback, running.observables);
    running?.histogram.disable();
    const histogram = monitorEventLoopDelay({ resolution: 20 });
    histogram.enable();
    const observables: Observable[] = [
      instruments.p50,
      instruments.p90,
      instruments.p99,
      instruments.max,
      instruments.mean,
    ];
    const callback: BatchObservableCallback = (result) => {
      result.observe(instruments.p50, histogram.percentile(50) / 1e9);
      result.observe(instruments.p90, histogram.percentile(90) / 1e9);
      result.observe(instruments.p99, histogram.percentile(99) / 1e9);
      result.observe(instruments.max, histogram.max / 1e9);
      result.observe(instruments.mean, Number.isNaN(histogram.mean) ? 0 : histogram.mean / 1e9);
    };
    instruments.meter.addBatchObservableCallback(callback, observables);
    running = { users: 0, histogram, meter: instruments.meter, callback, observables };
  }
  const mine = running;
  mine.users++;
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--mine.users > 0 || running !== mine) return;
    mine.meter.removeBatchObservableCallback(mine.callback, mine.observables);
    mine.histogram.disable();
    running = undefined;
  };
}
