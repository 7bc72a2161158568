import { SKILL_LIMITS, type Skill } from '@modelcontextprotocol/client/ext/skills';

/**
 * The per-skill limits of the MCP Skills extension (SEP-2640 "Limits": 512 files and
 * 16 MiB per skill, `SKILL.md` included), checked from a skill's entry alone, before any of
 * its files is read. Hosts must accept skills up to the limits and may refuse larger ones;
 * we refuse them, so one skill can never make us hold more than 16 MiB, and say why rather
 * than fail on a later read (the SEP's SHOULD). Pure.
 */

/** How many files a skill lists and how many bytes they add up to. */
export interface SkillSize {
  readonly files: number;
  readonly bytes: number;
}

/** The limits a skill is held to. */
export interface SkillLimits {
  readonly files: number;
  readonly bytes: number;
}

/** The files and bytes `skill` lists; undefined for a `"dynamic"` skill, which lists none. */
export function skillSize(skill: Pick<Skill, 'resources'>): SkillSize | undefined {
  if (skill.resources === 'dynamic') return undefined;
  let bytes = 0;
  for (const file of skill.resources) bytes += file.size;
  return { files: skill.resources.length, bytes };
}

/** Why `skill` is over `limits` (default the SEP's), in words; undefined when it is within them. */
export function skillLimitProblem(
  skill: Pick<Skill, 'resources'>,
  limits: SkillLimits = SKILL_LIMITS,
): string | undefined {
  const size = skillSize(skill);
  if (size === undefined) return undefined;
  if (size.files > limits.files) return `it lists ${size.files} files, more than the ${limits.files} allowed`;
  if (size.bytes > limits.bytes)
    return `its files add up to ${size.bytes} bytes, more than the ${limits.bytes} allowed`;
  return undefined;
}
