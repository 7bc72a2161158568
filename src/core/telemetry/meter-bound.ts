import { createNoopMeter, type Meter, type MeterProvider, metrics } from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION } from './semconv.js';

/** Instruments on the current meter, and whether that meter records at all. */
export interface MeterBound<T> {
  /** False while no SDK is registered: then the instruments are no-ops, and work done only for them can be skipped. */
  readonly on: boolean;
  readonly instruments: T;
}

/**
 * Instruments made on the meter provider that is global *now*. Unlike the tracer, the
 * metrics API has no proxy: a meter taken before an app registers its SDK stays a no-op for
 * good. So instruments are made lazily and made again when the global provider changes (an
 * app registering its SDK after Switchboard's modules loaded; a test swapping providers).
 * One comparison per use while nothing changes.
 */
export function meterBound<T>(make: (meter: Meter) => T): () => MeterBound<T> {
  let provider: MeterProvider | undefined;
  let bound: MeterBound<T> | undefined;
  return () => {
    const current = metrics.getMeterProvider();
    if (bound === undefined || current !== provider) {
      provider = current;
      const meter = current.getMeter(INSTRUMENTATION_SCOPE, INSTRUMENTATION_VERSION);
      // The API's no-op provider hands out the one no-op meter.
      bound = { on: meter !== createNoopMeter(), instruments: make(meter) };
    }
    return bound;
  };
}
