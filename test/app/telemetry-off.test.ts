import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * "Off means no cost": a process composed as `switchboard serve` is, with nothing configured,
 * serves a tool call through the gateway to a real upstream without loading one module of an
 * OpenTelemetry SDK — only `@opentelemetry/api`, whose no-op globals the library layers use.
 * Checked in a fresh process (the module graph of this test runner has the SDK loaded).
 */
const probe = fileURLToPath(new URL('../fixtures/telemetry-off-probe.ts', import.meta.url));
let dir: string;
let report: {
  answer: string;
  telemetry: boolean;
  modules: string[];
  seen: { header?: string; meta?: string }[];
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-otel-off-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe, dir], {
    env,
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  report = JSON.parse(stdout.trim().split('\n').at(-1)!);
}, 90_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('telemetry off', () => {
  it('serves the call, and starts no telemetry', () => {
    expect(report.answer).toContain('"ok"');
    expect(report.telemetry).toBe(false);
  });

  it('loads @opentelemetry/api and nothing else of OpenTelemetry', () => {
    const packages = new Set(
      report.modules.flatMap((url) => {
        const match = /node_modules\/(@opentelemetry\/[^/]+)\//.exec(url);
        return match ? [match[1]!] : [];
      }),
    );
    // The probe's own imports resolved through the hooks: the list is not empty by accident.
    expect(report.modules.some((url) => url.includes('/src/gateway/http-gateway.ts'))).toBe(true);
    expect(packages).toEqual(new Set(['@opentelemetry/api']));
  });

  it('sends no trace context upstream: the caller’s header is not relayed, and no span of ours exists', () => {
    expect(report.seen).toHaveLength(1);
    expect(report.seen[0]!.header).toBeUndefined();
    expect(report.seen[0]!.meta).toBeUndefined();
  });
});
