import { describe, expect, it } from 'vitest';
import { type ApprovalMode, type CallRequest, decide, type Profile } from '../../src/policy/decide.js';
import { type ToolRisk, type TrustLevel, toolRisk } from '../../src/policy/tool-risk.js';

const annotationsCases = [
  ['none', undefined],
  ['readOnly', { readOnlyHint: true }],
  ['destructive', { destructiveHint: true }],
  ['both', { readOnlyHint: true, destructiveHint: true }],
] as const;

describe('toolRisk', () => {
  const expected: Record<TrustLevel, Record<string, ToolRisk>> = {
    untrusted: { none: 'exec', readOnly: 'exec', destructive: 'dangerous', both: 'dangerous' },
    trusted: { none: 'exec', readOnly: 'read_only', destructive: 'dangerous', both: 'dangerous' },
  };
  for (const trust of ['untrusted', 'trusted'] as const) {
    for (const [label, annotations] of annotationsCases) {
      it(`${trust} + ${label} → ${expected[trust][label]}`, () => {
        expect(toolRisk(trust, annotations)).toBe(expected[trust][label]);
      });
    }
  }
});

describe('decide, every trust × annotation × mode × profile', () => {
  const base = { server: 'gh', tool: 'create_issue' } as const;
  const verdictFor = (risk: ToolRisk, mode: ApprovalMode, profile: Profile, allowRule: boolean) => {
    if (profile !== 'interactive' && !allowRule) return 'deny';
    if (mode === 'full-auto') return 'allow';
    if (mode === 'auto-edit') return risk === 'read_only' ? 'allow' : 'ask';
    return 'ask';
  };
  for (const trust of ['untrusted', 'trusted'] as const) {
    for (const [label, annotations] of annotationsCases) {
      for (const mode of ['read-only', 'auto-edit', 'full-auto'] as const) {
        for (const profile of ['interactive', 'daemon', 'public_gateway'] as const) {
          for (const allowRule of [false, true]) {
            const request: CallRequest = {
              ...base,
              trust,
              annotations,
              mode,
              profile,
              ...(allowRule && { rules: [{ server: 'g?', tool: 'create_*', effect: 'allow' as const }] }),
            };
            const risk = toolRisk(trust, annotations);
            it(`${trust}/${label}/${mode}/${profile}/${allowRule ? 'rule' : 'no rule'}`, () => {
              const d = decide(request);
              expect(d.verdict).toBe(verdictFor(risk, mode, profile, allowRule));
              expect(d.risk).toBe(risk);
              expect(d.reason.length).toBeGreaterThan(0);
            });
          }
        }
      }
    }
  }
});

describe('decide, precedence', () => {
  const req = (extra: Partial<CallRequest>): CallRequest => ({
    server: 'gh',
    tool: 'delete_repo',
    trust: 'trusted',
    mode: 'full-auto',
    profile: 'interactive',
    ...extra,
  });

  it('a deny rule wins over every mode, allowlist and allow rule', () => {
    const d = decide(
      req({
        rules: [
          { server: '*', tool: '*', effect: 'allow' },
          { server: 'gh', tool: 'delete_*', effect: 'deny' },
        ],
        sessionAllowlist: new Set(['gh/delete_repo']),
      }),
    );
    expect(d).toMatchObject({ verdict: 'deny' });
    expect(d.reason).toContain('gh/delete_*');
  });

  it('a changed definition asks, even in full-auto and when always-allowed', () => {
    const d = decide(req({ definitionChanged: true, sessionAllowlist: new Set(['gh/delete_repo']) }));
    expect(d.verdict).toBe('ask');
    expect(d.reason).toMatch(/changed/);
  });

  it('"always allow" allows in read-only mode', () => {
    expect(decide(req({ mode: 'read-only', sessionAllowlist: new Set(['gh/delete_repo']) })).verdict).toBe(
      'allow',
    );
    expect(decide(req({ mode: 'read-only' })).verdict).toBe('ask');
  });

  it('non-interactive profiles say which rule to add', () => {
    expect(decide(req({ profile: 'daemon' })).reason).toContain('add an allow rule for gh/delete_repo');
  });
});
