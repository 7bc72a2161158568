import type { Skill } from '@modelcontextprotocol/client/ext/skills';

/**
 * The entries agents hold while acting on skills (SEP-2640 "The Acting Window and the Held
 * Entry"): from the moment an agent loads a skill, its files are read only as that entry lists
 * them and verified against it, so a file the server changed or added since fails rather than
 * reaching the model. Kept per session and sub-agent frame, in memory (a window ends with the
 * process at the latest; the agent loads the skill again). Bounded: past `max` held entries,
 * the longest held goes first.
 */
export class HeldSkills {
  private readonly entries = new Map<
    string,
    { readonly session: string; readonly frame: string; readonly skill: Skill }
  >();

  constructor(private readonly max = 10_000) {}

  /** Holds `skill` of `server` for `session` / `frame` (replacing one held before). */
  hold(session: string, frame: string, server: string, skill: Skill): void {
    const key = keyOf(session, frame, server, skill.uri);
    this.entries.delete(key);
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { session, frame, skill });
  }

  /** The entry held for the skill at `uri` of `server`, if it is loaded in that frame. */
  get(session: string, frame: string, server: string, uri: string): Skill | undefined {
    return this.entries.get(keyOf(session, frame, server, uri))?.skill;
  }

  /** Ends the windows of a frame (or, with `frame` undefined, of the whole session). */
  release(session: string, frame?: string): number {
    let released = 0;
    for (const [key, held] of [...this.entries]) {
      if (held.session === session && (frame === undefined || held.frame === frame)) {
        this.entries.delete(key);
        released++;
      }
    }
    return released;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** JSON of the four parts: no choice of ids can make two keys alike. */
function keyOf(session: string, frame: string, server: string, uri: string): string {
  return JSON.stringify([session, frame, server, uri]);
}
