import { z } from 'zod';
import { parseSection } from './issue-text.js';

/**
 * The `telemetry` section of a config file: whether Switchboard starts an OpenTelemetry SDK
 * of its own (traces and metrics, pushed by OTLP), and whether the gateway serves its metrics
 * as Prometheus text. The standard `OTEL_*` environment variables say the same and win
 * (OpenTelemetry "Environment Variable Specification"); with neither, no SDK is loaded. The
 * app layer (src/app/telemetry.ts) gives these fields their meaning.
 *
 * ```jsonc
 * "telemetry": {
 *   "serviceName": "switchboard-gateway",
 *   "otlp": { "endpoint": "http://127.0.0.1:4318", "protocol": "http/protobuf" },
 *   "traces": { "sampler": "parentbased_traceidratio", "ratio": 0.1 },
 *   "metrics": { "prometheus": true, "intervalMs": 30000 }
 * }
 * ```
 */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export const telemetrySchema = z
  .strictObject({
    enabled: z
      .boolean()
      .optional()
      .describe(
        'false: no SDK whatever else is set. true: traces and metrics even without an OTLP endpoint.',
      ),
    serviceName: z
      .string()
      .min(1)
      .optional()
      .describe('service.name of the resource (OTEL_SERVICE_NAME wins).'),
    otlp: z
      .strictObject({
        endpoint: z
          .url()
          .optional()
          .describe('Base URL of an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318.'),
        protocol: z.enum(OTLP_PROTOCOLS).optional().describe('http/protobuf (default) or http/json.'),
      })
      .optional(),
    traces: z
      .strictObject({
        sampler: z
          .enum(TRACE_SAMPLERS)
          .optional()
          .describe('As OTEL_TRACES_SAMPLER; default parentbased_traceidratio with ratio 0.1.'),
        ratio: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            'The ratio of the *traceidratio samplers (default 0.1 with the default sampler, else 1).',
          ),
      })
      .optional(),
    metrics: z
      .strictObject({
        prometheus: z.boolean().optional().describe('Serve GET /metrics on the gateway (behind its auth).'),
        intervalMs: z
          .int()
          .min(1000)
          .optional()
          .describe('How often metrics are pushed by OTLP. Default 60000.'),
      })
      .optional(),
  })
  .describe('OpenTelemetry traces and metrics; see docs/observability.md.');

export type TelemetrySection = z.infer<typeof telemetrySchema>;

/** Validates the `telemetry` section of `file`; a rejection names the file and the field. */
export function parseTelemetry(raw: unknown, file: string): TelemetrySection {
  return parseSection(telemetrySchema, 'telemetry', raw, file);
}

/** Project settings win field by field, within each sub-object. */
export function mergeTelemetry(user: TelemetrySection, project: TelemetrySection): TelemetrySection {
  const nested = <K extends 'otlp' | 'traces' | 'metrics'>(key: K) =>
    user[key] || project[key] ? { [key]: { ...user[key], ...project[key] } } : {};
  return { ...user, ...project, ...nested('otlp'), ...nested('traces'), ...nested('metrics') };
}
