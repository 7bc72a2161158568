import type { DirectoryResource, Skill, SkillFile } from '@modelcontextprotocol/client/ext/skills';
import type { Connection } from '../../client/connection.js';
import type { CallOptions } from '../../client/connection-types.js';
import { guardUntrustedText } from '../../policy/scan/guard.js';
import type { Attributed, CatalogSnapshot } from '../catalog/catalog.js';
import type { Governor } from '../governance/governor.js';
import type { GuardContext } from '../guarded-content.js';
import type { ContentOptions } from '../host-types.js';
import { HeldSkills } from './held-skills.js';

/**
 * The skills of the host's servers (MCP Skills extension, SEP-2640), for its own agents and
 * for the gateway. A skill is the pair of its server (the host's name for it, never what the
 * server calls itself) and the URI of its `SKILL.md`; nothing keys on the URI alone, since two
 * servers may serve the same one. Listing is the catalog's (entries only, nothing read);
 * fetching an entry, loading a skill and reading its files go to the skill's own server, pass
 * policy as reads do (`resources/read` in the rules: skill files are resources), and are
 * audited (`skill_get`, `skill_load`, `skill_read`, `skill_directory`). Every file is verified
 * against the entry it was read under (client/skills.ts); what a model is shown of an
 * untrusted server's skill is guarded like any resource text from it.
 */

export interface HostSkillsDeps {
  readonly governor: Governor;
  readonly catalog: () => CatalogSnapshot;
  readonly connected: (server: string) => Connection;
  readonly guardContext: (server: string) => GuardContext;
}

/** A skill file read for a model: the verified file, and its text as the model may be shown it. */
export interface LoadedSkillFile {
  readonly server: string;
  readonly file: SkillFile;
  /** The file's text; from a server that is not trusted, wrapped where the scanner flags it. */
  readonly text: string;
}

export class HostSkills {
  /** Entries held by agents acting on a skill (held-skills.ts). */
  readonly held = new HeldSkills();

  constructor(private readonly deps: HostSkillsDeps) {}

  /** Every skill of every connected server, with its server, in catalog order. Reads nothing. */
  list(): readonly Attributed<Skill>[] {
    return this.deps.catalog().skills;
  }

  /** The catalog's entry of the skill at `uri` on `server`, if listed. */
  find(server: string, uri: string): Skill | undefined {
    return this.list().find((s) => s.server === server && s.item.uri === uri)?.item;
  }

  /**
   * The current entry of the skill at `uri` from `server` itself (`skills/get`), listed or
   * not: how an entry is refreshed. NOT_FOUND when the server serves no such skill.
   */
  get(server: string, uri: string, options: ContentOptions = {}): Promise<Skill> {
    return this.audited('skill_get', server, options, { uri }, () =>
      this.deps.connected(server).skills.get(uri, options),
    );
  }

  /**
   * Reads one file of `skill` (default its `SKILL.md`: loading the skill) from `server`,
   * verified against `skill`, the entry the caller holds (SKILL_VERIFICATION_FAILED
   * otherwise, nothing returned). Audited as `skill_load` for the `SKILL.md`, `skill_read`
   * for another file.
   */
  async read(
    server: string,
    skill: Skill,
    ref: string | undefined,
    options: ContentOptions = {},
  ): Promise<LoadedSkillFile> {
    const action = ref === undefined ? 'skill_load' : 'skill_read';
    const details = { skill: skill.uri, name: skill.frontmatter.name, ...(ref !== undefined && { ref }) };
    const file = await this.audited(action, server, options, details, () =>
      this.deps.connected(server).skills.read(skill, ref, options),
    );
    const text = file.text ?? new TextDecoder().decode(file.bytes);
    const context = this.deps.guardContext(server);
    return {
      server,
      file,
      text: guardUntrustedText(text, {
        server,
        source: file.uri,
        trusted: context.trusted,
        context: { server, otherTools: context.otherTools },
      }),
    };
  }

  /** The direct children of directory `uri` on `server` (a server that declares `directoryRead`). */
  readDirectory(server: string, uri: string, options: ContentOptions = {}): Promise<DirectoryResource[]> {
    return this.audited('skill_directory', server, options, { uri }, () =>
      this.deps.connected(server).skills.readDirectory(uri, options),
    );
  }

  /** Whether `server` is connected and serves `resources/directory/read`. */
  directoryRead(server: string): boolean {
    try {
      return this.deps.connected(server).skills.directoryRead;
    } catch {
      return false;
    }
  }

  private async audited<T>(
    action: string,
    server: string,
    options: CallOptions & { readonly session?: string },
    details: Record<string, unknown>,
    work: () => Promise<T>,
  ): Promise<T> {
    const session = options.session;
    const who = { server, details, ...(session !== undefined && { session }) };
    await this.deps.governor.admitRead({ action, kind: 'resources/read', ...who });
    return this.deps.governor.noted({ action, ...who }, work);
  }
}
