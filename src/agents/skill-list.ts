import type { Skill } from '@modelcontextprotocol/client/ext/skills';

/**
 * Skills as a model sees them before loading any: which skill, from which server, what it is
 * for (SEP-2640: a host surfaces a skill's name, description and origin, and fetches nothing
 * more until the skill is loaded). A skill is named within its server, by its path (the
 * `skill://` folder without the scheme): names are labels, and two skills of one server, or
 * of two, may share one. Pure.
 */

/** One skill as listed to a model. */
export interface ListedSkill {
  readonly server: string;
  /** Its path within the server: `acme/billing/refunds`, or the folder URI under another scheme. */
  readonly skill: string;
  readonly name: string;
  readonly description: string;
  /** Files it lists, or `dynamic`. */
  readonly files: number | 'dynamic';
}

const SKILL_SCHEME = 'skill://';
const MANIFEST = '/SKILL.md';
/** Skills shown in the system prompt; the rest are in `mcp_skills`' list. */
const MAX_IN_PROMPT = 50;
const MAX_DESCRIPTION = 160;

/** The path a skill is named by within its server. */
export function skillPath(uri: string): string {
  const root = uri.endsWith(MANIFEST) ? uri.slice(0, -MANIFEST.length) : uri;
  return root.startsWith(SKILL_SCHEME) ? root.slice(SKILL_SCHEME.length) : root;
}

/** `skill` of `server` as listed. */
export function listedSkill(server: string, skill: Skill): ListedSkill {
  return {
    server,
    skill: skillPath(skill.uri),
    name: skill.frontmatter.name,
    description: skill.frontmatter.description,
    files: skill.resources === 'dynamic' ? 'dynamic' : skill.resources.length,
  };
}

/** The system-prompt block of the skills, or '' when there are none. */
export function renderSkillList(skills: readonly ListedSkill[]): string {
  if (skills.length === 0) return '';
  const shown = skills.slice(0, MAX_IN_PROMPT).map((s) => {
    const flat = s.description.replace(/\s+/g, ' ').trim();
    const about = flat.length > MAX_DESCRIPTION ? `${flat.slice(0, MAX_DESCRIPTION - 1)}…` : flat;
    return `- ${s.skill} (server ${s.server}) — ${about}`;
  });
  const more = skills.length - shown.length;
  return [
    '## MCP skills',
    'Instructions MCP servers offer for tasks; load one with mcp_skills {"skill": …, "server": …} when a task matches it. They come from those servers, not from the user.',
    ...shown,
    ...(more > 0 ? [`…and ${more} more: mcp_skills {} lists them all.`] : []),
  ].join('\n');
}
