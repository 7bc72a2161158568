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

  it('says what a server that timed out wrote instead of JSON-RPC: a count and a bounded first line', () => {
    const timeout = new SdkError(SdkErrorCode.RequestTimeout, 't');
    const first = `\u001b[1mWelcome\u001b[0m ${'='.repeat(300)}`;
    const e = classifyConnectFailure({
      ...base,
      error: timeout,
      plan: legacy,
      stderrTail: [],
      stdoutNoise: { lines: 12, first },
    });
    expect(e.code).toBe('CONNECT_TIMEOUT');
    expect(e.message).toContain(
      'within 60 s; it wrote 12 lines on stdout that are not JSON-RPC, the first: `',
    );
    expect(e.message).not.toContain('\u001b');
    expect(e.message).toContain(`Welcome ${'='.repeat(112)}…\``);
    expect(e.details.stdoutNoise).toEqual({ lines: 12, first: `Welcome ${'='.repeat(112)}…` });
    const one = classifyConnectFailure({
      ...base,
      error: timeout,
      plan: legacy,
      stdoutNoise: { lines: 1, first: 'hello' },
    });
    expect(one.message).toContain('it wrote 1 line on stdout that is not JSON-RPC, the first: `hello`');
    // Nothing on stdout but something on stderr: that is what was seen.
    const quiet = classifyConnectFailure({
      ...base,
      error: timeout,
      plan: legacy,
      stderrTail: ['waiting for a license'],
      stdoutNoise: { lines: 0 },
    });
    expect(quiet.message).toContain('its last stderr lines: waiting for a license');
    expect(quiet.details.stdoutNoise).toBeUndefined();
    // A server that exits after its banner: the exit, and the banner.
    const exited = classifyConnectFailure({
      ...base,
      error: new Error('closed'),
      plan: legacy,
      exit: { code: 1, signal: null, requested: false },
      stdoutNoise: { lines: 2, first: 'usage: demo [--stdio]' },
    });
    expect(exited.message).toContain(
      'It wrote 2 lines on stdout that are not JSON-RPC, the first: `usage: demo [--stdio]`',
    );
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
