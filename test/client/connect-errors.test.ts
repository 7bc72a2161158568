import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { classifyConnectFailure } from '../../src/client/connect-errors.js';
import type { EraPlan } from '../../src/client/era.js';

const legacy: EraPlan = { negotiation: { mode: 'legacy' }, supportedVersions: ['2025-11-25', '2025-06-18'] };
const pinned: EraPlan = { negotiation: { mode: { pin: '2026-07-28' } }, supportedVersions: ['2026-07-28'] };
const base = { server: 's', connectMs: 60_000 };

describe('classifyConnectFailure', () => {
  it('names both versions when the server offers one we do not speak', () => {
    const e = classifyConnectFailure({ ...base, error: new Error('x'), plan: legacy, offered: '2024-01-01' });
    expect(e.code).toBe('PROTOCOL_VERSION_UNSUPPORTED');
    expect(e.message).toContain('2024-01-01');
    expect(e.message).toContain('2025-11-25, 2025-06-18');
  });

  it('explains an exit with its code and stderr, but not one we caused', () => {
    const exit = { code: 3, signal: null, requested: false };
    const e = classifyConnectFailure({
      ...base,
      error: new Error('closed'),
      plan: legacy,
      exit,
      stderrTail: ['fatal: no key'],
    });
    expect([e.code, e.details.exited]).toEqual(['CONNECT_FAILED', true]);
    expect(e.message).toContain('code 3');
    expect(e.message).toContain('fatal: no key');
    const ours = classifyConnectFailure({
      ...base,
      error: new Error('closed'),
      plan: legacy,
      exit: { ...exit, requested: true },
    });
    expect(ours.details.exited).toBeUndefined();
  });

  it('turns an SDK timeout into CONNECT_TIMEOUT with the budget', () => {
    const e = classifyConnectFailure({
      ...base,
      error: new SdkError(SdkErrorCode.RequestTimeout, 't'),
      plan: legacy,
    });
    expect(e.code).toBe('CONNECT_TIMEOUT');
    expect(e.message).toContain('60 s');
  });

  it('recovers the HTTP status the SDK dropped, except a 400 to a pinned probe', () => {
    const negotiation = new SdkError(SdkErrorCode.EraNegotiationFailed, 'no');
    const e404 = classifyConnectFailure({
      ...base,
      error: negotiation,
      plan: pinned,
      httpFailure: { status: 404, body: 'Not found' },
    });
    expect([e404.code, e404.details.status, e404.details.body]).toEqual(['UPSTREAM_HTTP', 404, 'Not found']);
    const e400 = classifyConnectFailure({
      ...base,
      error: negotiation,
      plan: pinned,
      httpFailure: { status: 400, body: '' },
    });
    expect(e400.code).toBe('PROTOCOL_VERSION_UNSUPPORTED');
    expect(e400.message).toContain('2026-07-28');
  });
});
