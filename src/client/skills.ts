import type { Client, ServerCapabilities } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import {
  type DirectoryResource,
  type InvalidSkillEntry,
  SKILL_LIMITS,
  SKILLS_EXTENSION_ID,
  type Skill,
  type SkillFile,
  SkillsClient,
  SkillVerificationError,
} from '@modelcontextprotocol/client/ext/skills';
import { skillsCapabilityOf } from '@modelcontextprotocol/core/ext/skills';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { CallOptions } from './connection-types.js';
import { ListWalkStopped, type ListWalks } from './list-walk.js';
import type { RequestRunner } from './request-runner.js';
import { skillLimitProblem } from './skill-limits.js';

/**
 * One connection's side of the MCP Skills extension (`io.modelcontextprotocol/skills`,
 * SEP-2640): the server's skills listed (and kept until the server says its resources
 * changed), one skill's entry fetched, a skill's files read and verified, a skill directory
 * listed. The SDK's `SkillsClient` speaks the extension and verifies every file against the
 * entry (listed, size, digest, and a `SKILL.md`'s frontmatter); this adds what a host needs
 * around it: our request runner (deadline, cancellation, typed errors), the per-skill limits
 * checked before anything is read, page walks watched for loops, and errors that say which
 * check failed and what to do.
 *
 * Nothing here reads a skill's file unless asked: listing reads no file (SEP-2640 "Lazy
 * Retrieval": not on connection, not on listing).
 */

/** A server's skills: the valid entries, and the ones refused with why. */
export interface SkillListing {
  readonly skills: readonly Skill[];
  /** Entries the SDK refused (bad shape, name rules, a file outside the skill, a repeated URI). */
  readonly invalid: readonly InvalidSkillEntry[];
}

/** What the lane needs of its connection. */
export interface SkillsLaneHost {
  readonly name: string;
  readonly runner: RequestRunner;
  capabilities(): ServerCapabilities | undefined;
  /** The page walks of the live session's transport, watched for loops (list-walk.ts). */
  walks(): ListWalks | undefined;
  /** Most pages followed per list. */
  pageCap(): number;
  /** A line for the server's log. */
  warn(text: string): void;
}

const EMPTY: SkillListing = { skills: [], invalid: [] };

export class ConnectionSkills {
  private listing?: Promise<SkillListing>;

  constructor(private readonly host: SkillsLaneHost) {}

  /** The server declares the extension. */
  get supported(): boolean {
    return skillsCapabilityOf(this.host.capabilities()) !== undefined;
  }

  /** The server serves `resources/directory/read` (it declared `directoryRead: true`). */
  get directoryRead(): boolean {
    return skillsCapabilityOf(this.host.capabilities())?.directoryRead === true;
  }

  /**
   * Every skill the server lists, all pages walked, fetched once and kept until
   * `invalidate()` (the connection calls it when the server's resources change: a server
   * announces a change of its skills as `resources/list_changed`, and on reconnect). A server
   * without the extension has none. Entries the SDK refuses are left out, logged, and returned
   * in `invalid`. A listing whose pages do not end (a cursor handed back again, or more pages
   * than the cap) fails UPSTREAM_PROTOCOL, is logged, and that failure is kept like a listing:
   * the server's skills are not offered until it announces a change, and its broken walk is
   * not made again on every call. Other failures (a timeout, a drop) are not kept.
   */
  list(): Promise<SkillListing> {
    if (!this.supported) return Promise.resolve(EMPTY);
    const pending = this.listing ?? this.fetchListing();
    this.listing = pending;
    pending.catch((error: unknown) => {
      if (this.listing !== pending) return;
      if (isSwitchboardError(error, 'UPSTREAM_PROTOCOL'))
        this.host.warn(`skills not offered: ${error.message}`);
      else this.listing = undefined;
    });
    return pending;
  }

  /** Forgets the listing; the next `list()` asks the server again. */
  invalidate(): void {
    this.listing = undefined;
  }

  /**
   * The current entry of the skill whose `SKILL.md` is at `uri`, listed or not
   * (`skills/get`): how a host refreshes one skill's digests. NOT_FOUND when the server has no
   * such skill (it answers -32602) or no skills at all.
   */
  async get(uri: string, options: CallOptions = {}): Promise<Skill> {
    this.requireSupport('skills/get');
    return this.host.runner.run(
      'skills/get',
      options,
      async (client, rq) => {
        try {
          return (await skillsClient(client).get(uri, rq)).skill;
        } catch (error) {
          throw this.notServed(error, uri);
        }
      },
      { uri },
    );
  }

  /**
   * Reads one file of `skill` (default its `SKILL.md`; `ref` a path relative to the skill's
   * root, or a URI) and verifies it against the entry: the file must be listed (checked before
   * anything is sent, so `../` cannot reach out of the skill), its size and digest must match,
   * and a `SKILL.md`'s frontmatter must equal the entry's. A failed check throws
   * SKILL_VERIFICATION_FAILED and the content is never returned. A skill over the per-skill
   * limits is refused SKILL_TOO_LARGE before any read. A `"dynamic"` skill cannot be verified
   * (`verified: false`); one of its files larger than the whole-skill limit is refused.
   */
  async read(skill: Skill, ref?: string, options: CallOptions = {}): Promise<SkillFile> {
    this.requireSupport('resources/read');
    const problem = skillLimitProblem(skill);
    if (problem !== undefined) throw this.tooLarge(skill, problem);
    return this.host.runner.run(
      'resources/read',
      options,
      async (client, rq) => {
        let file: SkillFile;
        try {
          file = await skillsClient(client).read(skill, ref, { ...rq, cacheMode: 'bypass' });
        } catch (error) {
          throw this.verificationError(error, skill);
        }
        if (!file.verified && file.bytes.byteLength > SKILL_LIMITS.bytes)
          throw this.tooLarge(skill, `its file ${file.uri} alone is ${file.bytes.byteLength} bytes`);
        return file;
      },
      { uri: skill.uri },
    );
  }

  /**
   * The direct children of a directory resource (`resources/directory/read`, every page
   * walked), for a server that declared `directoryRead`. A directory read is a live view: it
   * never extends what a held skill entry lists (SEP-2640 "Directory Reads and the Held Entry").
   */
  async readDirectory(uri: string, options: CallOptions = {}): Promise<DirectoryResource[]> {
    if (!this.directoryRead) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `Server "${this.host.name}" does not list directories (it does not declare directoryRead for ${SKILLS_EXTENSION_ID}); use the files a skill's entry lists.`,
        { details: { server: this.host.name, uri } },
      );
    }
    return this.host.runner.run(
      'resources/directory/read',
      options,
      (client, rq) =>
        this.walked('resources/directory/read', 'resources', async () => {
          try {
            return (await skillsClient(client).readDirectory(uri, rq)).resources;
          } catch (error) {
            throw this.notServed(error, uri);
          }
        }),
      { uri },
    );
  }

  private async fetchListing(): Promise<SkillListing> {
    const listing = await this.host.runner.run('skills/list', {}, (client, rq) =>
      this.walked('skills/list', 'skills', () => skillsClient(client).list({}, rq)),
    );
    if (listing.invalid.length > 0) {
      const which = listing.invalid.map((e) => `${e.uri ?? `#${e.index}`}: ${e.reason}`).join('; ');
      this.host.warn(
        `skills/list: ${listing.invalid.length} skill entries refused and not offered (${which})`,
      );
    }
    return { skills: listing.skills, invalid: listing.invalid };
  }

  /**
   * Runs a paginated walk the SDK makes, watched page by page on the wire: a cursor handed
   * back again stops it at once, more pages than the cap stop it there (the SDK's own cap is
   * the same number). Either way the walk fails, with why.
   */
  private async walked<T>(method: string, field: string, run: () => Promise<T>): Promise<T> {
    const walks = this.host.walks();
    const cap = this.host.pageCap();
    const walk = walks?.begin<{ uri?: unknown }>(method, field, cap, (item) =>
      typeof item?.uri === 'string' ? item.uri : undefined,
    );
    try {
      return await run();
    } catch (error) {
      const capped = error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded;
      const cut =
        error instanceof ListWalkStopped
          ? error.truncation
          : capped
            ? { reason: 'page-cap', pages: cap }
            : undefined;
      if (!cut) throw error;
      const why =
        cut.reason === 'cursor-loop'
          ? `it handed back a cursor already followed after ${cut.pages} pages`
          : `it still had pages after ${cut.pages}`;
      throw new SwitchboardError(
        'UPSTREAM_PROTOCOL',
        `Server "${this.host.name}" broke pagination of ${method}: ${why}. Nothing of it is used; report it to the server's maintainers.`,
        { cause: error, details: { server: this.host.name, method, ...cut } },
      );
    } finally {
      if (walk) walks?.end(walk);
    }
  }

  private requireSupport(method: string): void {
    if (this.supported) return;
    throw new SwitchboardError(
      'NOT_FOUND',
      `Server "${this.host.name}" offers no skills (it does not declare the ${SKILLS_EXTENSION_ID} extension); ${method} was not sent.`,
      { details: { server: this.host.name } },
    );
  }

  /** A -32602 from the server means it serves no such skill or directory: NOT_FOUND. */
  private notServed(error: unknown, uri: string): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== INVALID_PARAMS) return error;
    const text = error instanceof Error ? error.message : String(error);
    return new SwitchboardError('NOT_FOUND', `Server "${this.host.name}" serves nothing at ${uri}: ${text}`, {
      cause: error,
      details: { server: this.host.name, uri, rpcCode: INVALID_PARAMS },
    });
  }

  private verificationError(error: unknown, skill: Skill): unknown {
    if (error instanceof SkillVerificationError) {
      return new SwitchboardError(
        'SKILL_VERIFICATION_FAILED',
        `Skill ${skill.uri} of server "${this.host.name}" failed verification: ${error.message}. ` +
          'Its content was not used; fetch its entry again (skills/get) in case it changed, and load it anew.',
        {
          cause: error,
          details: {
            server: this.host.name,
            skill: skill.uri,
            uri: error.uri,
            reason: error.reason,
            ...(error.differences.length > 0 && { differences: [...error.differences] }),
          },
        },
      );
    }
    // The SDK checks the entry again before any request: one it refuses is the caller's to fix.
    if (error instanceof TypeError) {
      return new SwitchboardError(
        'INVALID_ARGUMENT',
        `${error.message}. Pass an entry as skills/list or skills/get returned it.`,
        { cause: error, details: { server: this.host.name, skill: skill.uri } },
      );
    }
    return error;
  }

  private tooLarge(skill: Skill, problem: string): SwitchboardError {
    return new SwitchboardError(
      'SKILL_TOO_LARGE',
      `Skill ${skill.uri} of server "${this.host.name}" is not loaded: ${problem} (the Skills extension's per-skill limits are ${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes). Ask the server's maintainers to split it.`,
      { details: { server: this.host.name, skill: skill.uri, ...SKILL_LIMITS } },
    );
  }
}

const INVALID_PARAMS = -32602;

/** The SDK's skills client over `client`, refusing bad listing entries one by one rather than the whole listing. */
function skillsClient(client: Client): SkillsClient {
  return new SkillsClient(client, { skipInvalid: true });
}
