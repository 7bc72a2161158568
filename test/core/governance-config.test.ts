import { describe, expect, it } from 'vitest';
import { mergeConfigs, normalizeConfigFile } from '../../src/core/config/config-file.js';
import { DEFAULT_GOVERNANCE, resolveGovernance } from '../../src/core/config/governance-config.js';
import { SwitchboardError } from '../../src/core/errors.js';

describe('governance config', () => {
  it('reads the section and leaves unset fields unset', () => {
    const file = normalizeConfigFile(
      { governance: { mode: 'read-only', rules: [{ server: 'gh', tool: 'delete_*', effect: 'deny' }] } },
      'p.json',
    );
    expect(file.governance).toEqual({
      mode: 'read-only',
      rules: [{ server: 'gh', tool: 'delete_*', effect: 'deny' }],
    });
    expect(resolveGovernance(file.governance)).toEqual({
      ...DEFAULT_GOVERNANCE,
      mode: 'read-only',
      rules: [{ server: 'gh', tool: 'delete_*', effect: 'deny' }],
    });
  });

  it('names the file and field of a bad value', () => {
    let error: unknown;
    try {
      normalizeConfigFile({ governance: { mode: 'yolo' } }, 'p.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SwitchboardError);
    expect((error as SwitchboardError).code).toBe('CONFIG_INVALID');
    expect((error as SwitchboardError).message).toMatch(/^p\.json: field "governance\.mode"/);
    expect(() => normalizeConfigFile({ governance: { scan: 'block', extra: 1 } }, 'p.json')).toThrow(
      /governance/,
    );
    expect(() => normalizeConfigFile({ governance: { approvalTimeoutMs: 5 } }, 'p.json')).toThrow(
      /approvalTimeoutMs/,
    );
  });

  it('merges project over user, field by field, rules from both', () => {
    const user = normalizeConfigFile(
      {
        governance: { mode: 'full-auto', scan: 'warn', rules: [{ server: '*', tool: 'x', effect: 'deny' }] },
      },
      'u.json',
    );
    const project = normalizeConfigFile(
      { governance: { mode: 'read-only', rules: [{ server: 'a', tool: '*', effect: 'allow' }] } },
      'p.json',
    );
    expect(mergeConfigs(user, project).governance).toEqual({
      mode: 'read-only',
      scan: 'warn',
      rules: [
        { server: 'a', tool: '*', effect: 'allow' },
        { server: '*', tool: 'x', effect: 'deny' },
      ],
    });
    expect(mergeConfigs({ servers: [] }, { servers: [] }).governance).toBeUndefined();
  });
});
