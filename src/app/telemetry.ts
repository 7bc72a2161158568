import { context, metrics, propagation, trace } from '@opentelemetry/api';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { Sampler } from '@opentelemetry/sdk-trace';
import type { TelemetrySection } from '../core/config/telemetry-config.js';
import { observeEventLoop } from '../core/telemetry/event-loop.js';
import { INSTRUMENTATION_VERSION } from '../core/telemetry/semconv.js';
import { type TelemetrySettings, telemetrySettings } from './telemetry-settings.js';

/**
 * The OpenTelemetry SDK of a Switchboard process, when configured (telemetry-settings.ts): a
 * tracer provider exporting by OTLP/HTTP (protobuf or JSON), a meter provider pushing by
 * OTLP and/or read on demand as Prometheus text, W3C trace context and baggage propagation,
 * and an AsyncLocalStorage context manager (spans follow `await`s). Registered as the global
 * providers, which is all the library layers look at (`@opentelemetry/api`). The SDK packages
 * are imported only here, and only once telemetry is asked for: with nothing configured none
 * of them is loaded.
 *
 * An embedding app that registered an SDK of its own keeps it: the API refuses a second
 * registration, and Switchboard's spans and metrics go to the app's providers.
 */
export interface Telemetry {
  /** The current metrics as Prometheus text (exposition format 0.0.4), when `prometheus` is on. */
  readonly metricsText?: () => Promise<string>;
  /** Exports what is pending and stops the providers Switchboard registered. */
  shutdown(): Promise<void>;
}

/** The content type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Starts telemetry as `env` and the config file's `section` say; `undefined` when nothing
 * asks for it. A bad `OTEL_*` value or section is a CONFIG_INVALID naming it.
 */
export async function startTelemetry(
  env: Readonly<Record<string, string | undefined>>,
  section?: TelemetrySection,
  extra: { readonly metricReaders?: readonly MetricReader[] } = {},
): Promise<Telemetry | undefined> {
  const settings = telemetrySettings(env, section);
  if (!settings) return undefined;
  return startSdk(settings, env, section, extra.metricReaders ?? []);
}

async function startSdk(
  settings: TelemetrySettings,
  env: Readonly<Record<string, string | undefined>>,
  section: TelemetrySection | undefined,
  moreReaders: readonly MetricReader[],
): Promise<Telemetry> {
  const [sdkTrace, sdkMetrics, resources, core, hooks] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  const resource = resources.detectResources({ detectors: [resources.envDetector] }).merge(
    resources.resourceFromAttributes({
      'service.name': settings.serviceName,
      'service.version': INSTRUMENTATION_VERSION,
    }),
  );
  // OTLP Exporter Configuration: a per-signal endpoint is used as is; the base endpoint (env,
  // else the file's) gets the signal's path. Given explicitly, so `env` is the one read (the
  // exporters would read process.env themselves).
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? section?.otlp?.endpoint;
  const urlFor = (signal: 'TRACES' | 'METRICS', path: string) => {
    const own = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`];
    if (own !== undefined) return { url: own };
    return base !== undefined ? { url: new URL(path, withSlash(base)).href } : {};
  };

  const stops: (() => Promise<void>)[] = [];
  if (settings.traces) {
    const exporter =
      settings.traces.protocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(
            urlFor('TRACES', 'v1/traces'),
          )
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(
            urlFor('TRACES', 'v1/traces'),
          );
    const provider = new sdkTrace.TracerProvider({
      resource,
      sampler: samplerOf(sdkTrace, settings.sampler),
      spanProcessors: [new sdkTrace.BatchSpanProcessor({ exporter })],
    });
    if (trace.setGlobalTracerProvider(provider)) {
      const manager = new hooks.AsyncLocalStorageContextManager().enable();
      context.setGlobalContextManager(manager);
      propagation.setGlobalPropagator(
        new core.CompositePropagator({
          propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
        }),
      );
      stops.push(async () => {
        await provider.shutdown();
        trace.disable();
        propagation.disable();
        context.disable();
      });
    } else await provider.shutdown();
  }

  const readers: MetricReader[] = [...moreReaders];
  if (settings.metrics) {
    const exporter =
      settings.metrics.protocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(
            urlFor('METRICS', 'v1/metrics'),
          )
        : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(
            urlFor('METRICS', 'v1/metrics'),
          );
    readers.push(
      new sdkMetrics.PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: settings.metrics.intervalMs,
        exportTimeoutMillis: Math.min(30_000, settings.metrics.intervalMs),
      }),
    );
  }
  // Read on demand by GET /metrics: a reader of our own, as the Prometheus exporter's HTTP
  // server would be a second listener beside the gateway's, outside its authentication.
  class PullReader extends sdkMetrics.MetricReader {
    protected override async onShutdown(): Promise<void> {}
    protected override async onForceFlush(): Promise<void> {}
  }
  const pull = settings.prometheus ? new PullReader() : undefined;
  if (pull) readers.push(pull);
  let metricsText: (() => Promise<string>) | undefined;
  if (readers.length > 0) {
    const provider = new sdkMetrics.MeterProvider({ resource, readers });
    if (metrics.setGlobalMeterProvider(provider)) {
      const stopLoop = observeEventLoop();
      stops.push(async () => {
        stopLoop();
        await provider.shutdown();
        metrics.disable();
      });
      if (pull) {
        const { PrometheusSerializer } = await import('@opentelemetry/exporter-prometheus');
        const serializer = new PrometheusSerializer();
        metricsText = async () => serializer.serialize((await pull.collect()).resourceMetrics);
      }
    } else await provider.shutdown();
  }
  return {
    ...(metricsText && { metricsText }),
    shutdown: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

/** OpenTelemetry "SDK Environment Variables", OTEL_TRACES_SAMPLER: the samplers by name. */
function samplerOf(
  sdk: typeof import('@opentelemetry/sdk-trace'),
  chosen: TelemetrySettings['sampler'],
): Sampler {
  switch (chosen.name) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(chosen.ratio);
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(chosen.ratio) });
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
