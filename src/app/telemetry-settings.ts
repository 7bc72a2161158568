import type { TelemetrySection } from '../core/config/telemetry-config.js';
import { OTLP_PROTOCOLS, TRACE_SAMPLERS } from '../core/config/telemetry-config.js';
import { SwitchboardError } from '../core/errors.js';

/**
 * What telemetry to start, from the standard `OTEL_*` environment variables (OpenTelemetry
 * "Environment Variable Specification" and "OTLP Exporter Configuration") over the config
 * file's `telemetry` section. Pure: `undefined` means nothing is configured, and then no SDK
 * is loaded at all. The OTLP exporters read their own variables too (headers, timeouts,
 * per-signal endpoints); the ones here are those that decide whether and what to start.
 */
export interface TelemetrySettings {
  readonly serviceName: string;
  /** Where OTLP/HTTP goes; `undefined`: no OTLP export (Prometheus only, or an SDK for the app's own use). */
  readonly traces?: { readonly protocol: OtlpProtocol };
  readonly metrics?: { readonly protocol: OtlpProtocol; readonly intervalMs: number };
  /** Serve `GET /metrics` as Prometheus text on the gateway. */
  readonly prometheus: boolean;
  readonly sampler: { readonly name: TraceSampler; readonly ratio: number };
}

export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The sampler when neither OTEL_TRACES_SAMPLER nor the file names one. Not the spec's
 * `parentbased_always_on`: a gateway serves every tool call of every agent, and recording
 * each costs throughput (bench:gateway's telemetry variant) and the collector's storage.
 * Parent-based, so a caller that sends a sampled `traceparent` gets its whole trace through
 * the gateway; a trace that starts here is kept one time in ten. Metrics are not sampled:
 * rates and latencies stay exact. `OTEL_TRACES_SAMPLER=parentbased_always_on` keeps all.
 */
export const DEFAULT_SAMPLER: TraceSampler = 'parentbased_traceidratio';
export const DEFAULT_RATIO = 0.1;

/** The settings in force, or `undefined` when nothing asks for telemetry (or OTEL_SDK_DISABLED=true). */
export function telemetrySettings(env: Env, section: TelemetrySection = {}): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || section.enabled === false) return undefined;
  const exporters = (name: string) =>
    env[name]
      ?.split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e !== '');
  const tracesExporters = exporters('OTEL_TRACES_EXPORTER');
  const metricsExporters = exporters('OTEL_METRICS_EXPORTER');
  const anyEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || section.otlp?.endpoint !== undefined;
  // The spec's default exporter is otlp: on once an endpoint is given, unless said otherwise.
  const tracesOtlp =
    tracesExporters?.includes('otlp') ??
    (anyEndpoint || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || section.enabled === true);
  const metricsOtlp =
    metricsExporters?.includes('otlp') ??
    (anyEndpoint || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT !== undefined || section.enabled === true);
  const prometheus = metricsExporters?.includes('prometheus') ?? section.metrics?.prometheus === true;
  if (!tracesOtlp && !metricsOtlp && !prometheus && section.enabled !== true) return undefined;
  const protocol = (signal: 'TRACES' | 'METRICS') =>
    oneOf(
      env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
        env.OTEL_EXPORTER_OTLP_PROTOCOL ??
        section.otlp?.protocol,
      OTLP_PROTOCOLS,
      `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL`,
      'http/protobuf',
    );
  const intervalText = env.OTEL_METRIC_EXPORT_INTERVAL;
  const intervalMs =
    intervalText !== undefined ? positive(intervalText, 'OTEL_METRIC_EXPORT_INTERVAL') : undefined;
  const samplerName = env.OTEL_TRACES_SAMPLER ?? section.traces?.sampler;
  const ratioText = env.OTEL_TRACES_SAMPLER_ARG;
  // The spec's ratio default (1.0) when a ratio sampler is named; our default sampler's 10 %.
  const ratio =
    ratioText !== undefined
      ? unitRatio(ratioText)
      : (section.traces?.ratio ?? (samplerName === undefined ? DEFAULT_RATIO : 1));
  return {
    serviceName: env.OTEL_SERVICE_NAME ?? section.serviceName ?? 'switchboard',
    ...(tracesOtlp && { traces: { protocol: protocol('TRACES') } }),
    ...(metricsOtlp && {
      metrics: {
        protocol: protocol('METRICS'),
        intervalMs: intervalMs ?? section.metrics?.intervalMs ?? 60_000,
      },
    }),
    prometheus,
    sampler: {
      name: oneOf(samplerName, TRACE_SAMPLERS, 'OTEL_TRACES_SAMPLER', DEFAULT_SAMPLER),
      ratio,
    },
  };
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  name: string,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new SwitchboardError(
    'CONFIG_INVALID',
    `${name} is "${value}", which Switchboard does not support. Use one of: ${allowed.join(', ')}.`,
    { details: { field: name } },
  );
}

function positive(text: string, name: string): number {
  const n = Number(text);
  if (Number.isInteger(n) && n > 0) return n;
  throw new SwitchboardError(
    'CONFIG_INVALID',
    `${name} is "${text}"; it must be a whole number of milliseconds above 0.`,
    {
      details: { field: name },
    },
  );
}

function unitRatio(text: string): number {
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 1) return n;
  throw new SwitchboardError(
    'CONFIG_INVALID',
    `OTEL_TRACES_SAMPLER_ARG is "${text}"; the ratio samplers need a number from 0 to 1 (e.g. 0.1).`,
    { details: { field: 'OTEL_TRACES_SAMPLER_ARG' } },
  );
}
