import { describe, expect, it } from 'vitest';
import { telemetrySettings } from '../../src/app/telemetry-settings.js';
import { readConfigText } from '../../src/core/config/config-file.js';
import { isSwitchboardError } from '../../src/core/errors.js';

/** Which SDK parts start, from OTEL_* over the file's `telemetry` section; nothing configured, nothing starts. */
describe('telemetrySettings', () => {
  it('is off with nothing configured, and with OTEL_SDK_DISABLED=true whatever else is set', () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(telemetrySettings({ PATH: '/bin' }, {})).toBeUndefined();
    expect(
      telemetrySettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
    ).toBeUndefined();
    expect(telemetrySettings({}, { enabled: false, metrics: { prometheus: true } })).toBeUndefined();
  });

  it('an OTLP endpoint turns on both signals by OTLP, protobuf by default, http/json when asked', () => {
    const on = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })!;
    expect(on.traces).toEqual({ protocol: 'http/protobuf' });
    expect(on.metrics).toEqual({ protocol: 'http/protobuf', intervalMs: 60_000 });
    expect(on.prometheus).toBe(false);
    expect(on.sampler).toEqual({ name: 'parentbased_traceidratio', ratio: 0.1 });
    const json = telemetrySettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
    })!;
    expect(json.traces?.protocol).toBe('http/json');
    expect(json.metrics?.protocol).toBe('http/protobuf');
  });

  it('OTEL_*_EXPORTER picks exporters: prometheus alone starts no OTLP', () => {
    const prom = telemetrySettings({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_TRACES_EXPORTER: 'none' })!;
    expect(prom).toMatchObject({ prometheus: true });
    expect(prom.traces).toBeUndefined();
    expect(prom.metrics).toBeUndefined();
  });

  it('the environment wins over the file', () => {
    const settings = telemetrySettings(
      { OTEL_SERVICE_NAME: 'from-env', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      {
        serviceName: 'from-file',
        otlp: { endpoint: 'http://127.0.0.1:4318' },
        traces: { sampler: 'always_off' },
      },
    )!;
    expect(settings.serviceName).toBe('from-env');
    expect(settings.sampler).toEqual({ name: 'traceidratio', ratio: 0.25 });
  });

  it('refuses a value it cannot honour, naming the variable', () => {
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER_ARG: '2' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_METRIC_EXPORT_INTERVAL: 'soon' },
    ]) {
      let error: unknown;
      try {
        telemetrySettings(env);
      } catch (e) {
        error = e;
      }
      expect(isSwitchboardError(error, 'CONFIG_INVALID'), JSON.stringify(env)).toBe(true);
      expect((error as Error).message).toMatch(/OTEL_/);
    }
  });
});

describe('the telemetry section of a config file', () => {
  it('is read, and a bad field is refused naming the file and the field', () => {
    const file = readConfigText('{ "telemetry": { "metrics": { "prometheus": true } } }', 'switchboard.json');
    expect(file.telemetry).toEqual({ metrics: { prometheus: true } });
    expect(() =>
      readConfigText('{ "telemetry": { "otlp": { "protocol": "grpc" } } }', 'switchboard.json'),
    ).toThrow(/switchboard\.json: field "telemetry\.otlp\.protocol"/);
  });
});
