import { describe, expect, it } from 'vitest';
import { planRecovery } from '../../src/client/connect-recovery.js';
import type { EraPlan } from '../../src/client/era.js';
import { SwitchboardError } from '../../src/core/errors.js';
import type { ServerConfig } from '../../src/core/server-config.js';

const probe: EraPlan = { negotiation: { mode: 'auto' }, supportedVersions: ['2026-07-28', '2025-11-25'] };
const stdio: Pick<ServerConfig, 'protocol' | 'transport'> = {
  protocol: { kind: 'auto' },
  transport: { kind: 'stdio', command: 'x', args: [], env: {} },
};
const http: Pick<ServerConfig, 'protocol' | 'transport'> = {
  protocol: { kind: 'auto' },
  transport: { kind: 'http', url: 'http://h/mcp', headers: {} },
};
const err = (code: ConstructorParameters<typeof SwitchboardError>[0], details = {}) =>
  new SwitchboardError(code, 'x', { details });

describe('planRecovery', () => {
  it('drops a cached verdict that failed and probes afresh', () => {
    const r = planRecovery(err('CONNECT_FAILED'), { ...probe, prior: { kind: 'legacy' } }, stdio);
    expect(r?.forgetVerdict).toBe(true);
    expect(r?.attempt.plan.prior).toBeUndefined();
  });

  it('restarts a stdio server that died on the probe straight into initialize', () => {
    const r = planRecovery(err('CONNECT_FAILED', { exited: true }), probe, stdio);
    expect(r?.attempt.plan.prior).toEqual({ kind: 'legacy' });
    expect(
      planRecovery(err('CONNECT_FAILED', { exited: true }), probe, {
        ...stdio,
        protocol: { kind: 'modern' },
      }),
    ).toBeUndefined();
  });

  it('falls back to HTTP+SSE on a 4xx, but not on 401/403 or 5xx', () => {
    expect(planRecovery(err('UPSTREAM_HTTP', { status: 405 }), probe, http)?.attempt.sse).toBe(true);
    expect(
      planRecovery(err('UPSTREAM_HTTP', { status: 404 }), probe, http)?.attempt.plan.negotiation,
    ).toEqual({ mode: 'legacy' });
    for (const status of [401, 403, 500, 502]) {
      expect(planRecovery(err('UPSTREAM_HTTP', { status }), probe, http)).toBeUndefined();
    }
    expect(
      planRecovery(err('UPSTREAM_HTTP', { status: 404 }), probe, { ...http, protocol: { kind: 'modern' } }),
    ).toBeUndefined();
  });

  it('goes straight to initialize once when the probe got a 5xx, and says what that teaches', () => {
    const r = planRecovery(err('UPSTREAM_HTTP', { status: 500, failedProbe: true }), probe, http);
    expect(r?.attempt).toEqual({ plan: { ...probe, prior: { kind: 'legacy' } } });
    expect(r?.teaches).toBe('legacy');
    expect(r?.reason).toContain('HTTP 500');
    const sse: typeof http = { ...http, transport: { kind: 'sse', url: 'http://h/sse', headers: {} } };
    expect(planRecovery(err('UPSTREAM_HTTP', { status: 503, failedProbe: true }), probe, sse)?.teaches).toBe(
      'legacy',
    );
    // A pinned or modern entry has no older protocol to fall back to.
    expect(
      planRecovery(err('UPSTREAM_HTTP', { status: 500, failedProbe: true }), probe, {
        ...http,
        protocol: { kind: 'modern' },
      }),
    ).toBeUndefined();
  });

  it('never retries what a retry cannot fix', () => {
    for (const code of ['SPAWN_FAILED', 'ENV_VAR_MISSING', 'PROTOCOL_VERSION_UNSUPPORTED'] as const) {
      expect(planRecovery(err(code), { ...probe, prior: { kind: 'legacy' } }, stdio)).toBeUndefined();
    }
  });
});
