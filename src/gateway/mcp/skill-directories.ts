import type { Resource } from '@modelcontextprotocol/server';
import type { ExposedSkills } from './exposed-skills.js';

/**
 * Directory listings the gateway works out itself (`resources/directory/read`, SEP-2640
 * "Reading Directories") rather than asks an upstream for: a folder inside a skill whose
 * server does not list directories, from the files its entry lists (complete, by the SEP);
 * and the folders above the served skills (`skill://docs` when `docs`' skills are served
 * namespaced), whose children are the next folders down. Pure.
 */

/** The `mimeType` of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/**
 * The direct children of `dir` among `uris` (every URI below it, at any depth): each file
 * directly in it, and each folder the deeper ones are in, once, sorted by URI. Undefined when
 * nothing is below `dir`: it is no directory of these.
 */
export function childrenOf(dir: string, uris: Iterable<string>): Resource[] | undefined {
  const prefix = `${dir}/`;
  const children = new Map<string, Resource>();
  for (const uri of uris) {
    if (!uri.startsWith(prefix)) continue;
    const rest = uri.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    if (name === '') continue;
    const child = `${prefix}${name}`;
    const folder = slash >= 0;
    if (folder || !children.has(child))
      children.set(child, {
        uri: child,
        name: safeDecode(name),
        ...(folder && { mimeType: DIRECTORY_MIME_TYPE }),
      });
  }
  if (children.size === 0) return undefined;
  return [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/**
 * The listing of `dir` when it is a folder above served skills (not in one): the next folders
 * down towards their roots. Undefined when no served skill is below it.
 */
export function listingAbove(skills: ExposedSkills, dir: string): Resource[] | undefined {
  const below = skills.skills.filter((s) => s.root.startsWith(`${dir}/`)).map((s) => `${s.root}/SKILL.md`);
  return childrenOf(dir, below);
}

/**
 * The listing of `dir` inside a served skill from the files its entry lists, or undefined when
 * the entry lists none (`"dynamic"`) or none below `dir`.
 */
export function listingFromEntry(skills: ExposedSkills, dir: string): Resource[] | undefined {
  const skill = skills.resolve(dir)?.skill;
  if (!skill || skill.skill.resources === 'dynamic') return undefined;
  return childrenOf(
    dir,
    skill.skill.resources.map((r) => r.uri),
  );
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
