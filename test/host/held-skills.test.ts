import { describe, expect, it } from 'vitest';
import { HeldSkills } from '../../src/host/skills/held-skills.js';

const skill = (uri: string) => ({
  uri,
  frontmatter: { name: 'x', description: 'x' },
  resources: 'dynamic' as const,
});

describe('held skill entries (the acting window)', () => {
  it('holds per session, frame and server; releases a frame or a whole session', () => {
    const held = new HeldSkills();
    held.hold('s1', '', 'docs', skill('skill://a/SKILL.md'));
    held.hold('s1', 'sub', 'docs', skill('skill://a/SKILL.md'));
    held.hold('s2', '', 'docs', skill('skill://a/SKILL.md'));
    expect(held.get('s1', '', 'docs', 'skill://a/SKILL.md')).toBeDefined();
    expect(held.get('s1', '', 'other', 'skill://a/SKILL.md')).toBeUndefined();
    expect(held.release('s1', 'sub')).toBe(1);
    expect(held.get('s1', 'sub', 'docs', 'skill://a/SKILL.md')).toBeUndefined();
    expect(held.release('s1')).toBe(1);
    expect(held.size).toBe(1);
  });

  it('cannot be confused by ids holding the separator', () => {
    const held = new HeldSkills();
    held.hold('a\u0000b', 'c', 'd', skill('skill://x/SKILL.md'));
    expect(held.get('a', 'b\u0000c', 'd', 'skill://x/SKILL.md')).toBeUndefined();
    expect(held.release('a')).toBe(0);
  });

  it('is bounded: past its size the longest held goes first', () => {
    const held = new HeldSkills(3);
    for (let i = 0; i < 5; i++) held.hold('s', '', 'docs', skill(`skill://k${i}/SKILL.md`));
    expect(held.size).toBe(3);
    expect(held.get('s', '', 'docs', 'skill://k0/SKILL.md')).toBeUndefined();
    expect(held.get('s', '', 'docs', 'skill://k4/SKILL.md')).toBeDefined();
  });
});
