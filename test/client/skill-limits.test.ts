import { describe, expect, it } from 'vitest';
import { skillLimitProblem, skillSize } from '../../src/client/skill-limits.js';

const file = (size: number, n = 0) => ({ uri: `skill://s/f${n}`, digest: `sha256:${'0'.repeat(64)}`, size });

describe('skill limits (SEP-2640: 512 files, 16 MiB per skill)', () => {
  it('counts files and bytes; a dynamic skill lists none', () => {
    expect(skillSize({ resources: [file(10), file(5, 1)] })).toEqual({ files: 2, bytes: 15 });
    expect(skillSize({ resources: 'dynamic' })).toBeUndefined();
    expect(skillLimitProblem({ resources: 'dynamic' })).toBeUndefined();
  });

  it('accepts a skill at exactly the limits and refuses one past either', () => {
    const atFiles = Array.from({ length: 512 }, (_, i) => file(1, i));
    expect(skillLimitProblem({ resources: atFiles })).toBeUndefined();
    expect(skillLimitProblem({ resources: [...atFiles, file(1, 512)] })).toBe(
      'it lists 513 files, more than the 512 allowed',
    );
    expect(skillLimitProblem({ resources: [file(16 * 1024 * 1024)] })).toBeUndefined();
    expect(skillLimitProblem({ resources: [file(16 * 1024 * 1024), file(1, 1)] })).toBe(
      'its files add up to 16777217 bytes, more than the 16777216 allowed',
    );
  });

  it('holds a skill to limits given', () => {
    expect(skillLimitProblem({ resources: [file(3), file(3, 1)] }, { files: 1, bytes: 100 })).toMatch(
      /2 files/,
    );
  });
});
