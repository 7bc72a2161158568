import { describe, expect, it } from 'vitest';
import {
  isModernVersion,
  LEGACY_VERDICT_TTL_MS,
  planEra,
  serverIdentity,
  verdictOf,
} from '../../src/client/era.js';

const discover = { supportedVersions: ['2026-07-28'], capabilities: {} } as never;

describe('planEra', () => {
  it('auto without a verdict probes', () => {
    const p = planEra({ kind: 'auto' }, undefined, 0, 5000);
    expect(p.negotiation).toEqual({ mode: 'auto', probe: { timeoutMs: 5000 } });
    expect(p.prior).toBeUndefined();
  });

  it('auto reuses a modern verdict and a fresh legacy verdict, but not a stale one', () => {
    expect(planEra({ kind: 'auto' }, { kind: 'modern', discover, at: 0 }, 0, 1).prior).toEqual({
      kind: 'modern',
      discover,
    });
    expect(planEra({ kind: 'auto' }, { kind: 'legacy', at: 0 }, 1000, 1).prior).toEqual({ kind: 'legacy' });
    expect(
      planEra({ kind: 'auto' }, { kind: 'legacy', at: 0 }, LEGACY_VERDICT_TTL_MS + 1, 1).prior,
    ).toBeUndefined();
  });

  it('pins modern versions through the SDK pin and legacy versions through the offered list', () => {
    expect(planEra({ kind: 'pinned', version: '2026-07-28' }, undefined, 0, 1).negotiation).toEqual({
      mode: { pin: '2026-07-28' },
    });
    const legacy = planEra({ kind: 'pinned', version: '2025-03-26' }, undefined, 0, 1);
    expect(legacy.negotiation).toEqual({ mode: 'legacy' });
    expect(legacy.supportedVersions).toEqual(['2025-03-26']);
    expect(legacy.pinned).toBe('2025-03-26');
  });

  it('legacy mode offers only legacy versions, newest first', () => {
    expect(planEra({ kind: 'legacy' }, undefined, 0, 1).supportedVersions[0]).toBe('2025-11-25');
  });
});

describe('serverIdentity / isModernVersion', () => {
  it('keys stdio by command line and http by url', () => {
    expect(serverIdentity({ kind: 'stdio', command: 'a', args: ['b'], env: { X: '1' } })).toBe(
      serverIdentity({ kind: 'stdio', command: 'a', args: ['b'], env: { X: '2' } }),
    );
    expect(serverIdentity({ kind: 'http', url: 'http://a', headers: {} })).not.toBe(
      serverIdentity({ kind: 'sse', url: 'http://a', headers: {} }),
    );
  });

  it('tells eras apart', () => {
    expect(isModernVersion('2026-07-28')).toBe(true);
    expect(isModernVersion('2025-11-25')).toBe(false);
    expect(isModernVersion(undefined)).toBe(false);
  });
});

describe('verdictOf', () => {
  const auto = { kind: 'auto' } as const;
  const probed = planEra(auto, undefined, 0, 10_000);
  const outcome = (o: Partial<Parameters<typeof verdictOf>[1]>) =>
    ({ plan: probed, era: 'legacy', probe: 'answered', at: 5, ...o }) as Parameters<typeof verdictOf>[1];

  it('remembers what an answered probe said', () => {
    expect(verdictOf(auto, outcome({}))).toEqual({ kind: 'legacy', at: 5 });
    expect(verdictOf(auto, outcome({ era: 'modern', discover }))).toEqual({
      kind: 'modern',
      discover,
      at: 5,
    });
  });

  it('remembers nothing from a probe without an answer, a connect from a verdict, or a mode that does not probe', () => {
    expect(verdictOf(auto, outcome({ probe: 'unanswered' }))).toBeUndefined();
    expect(verdictOf(auto, outcome({ probe: 'none' }))).toBeUndefined();
    expect(verdictOf(auto, outcome({ plan: { ...probed, prior: { kind: 'legacy' } } }))).toBeUndefined();
    expect(verdictOf({ kind: 'legacy' }, outcome({}))).toBeUndefined();
  });
});
