import {
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { isSwitchboardError } from '../../core/errors.js';
import type { Host } from '../../host/host.js';
import {
  type ExposedSkills,
  hasDotSegment,
  parseNamespacedUri,
  rebased,
  skillRoot,
} from './exposed-skills.js';
import { type InputLimits, refuseOversized } from './input-caps.js';
import { listingAbove, listingFromEntry } from './skill-directories.js';
import { untilStarted } from './startup-wait.js';
import { forwarded } from './upstream-calls.js';

/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) served over the upstreams'
 * skills, through `expose.skills` and the caller's grants, under served URIs that say which
 * upstream a skill is from (exposed-skills.ts):
 *  - `skills/list`: the catalog's entries (nothing read upstream), paged;
 *  - `skills/get`: the entry fetched from its server (a listing may be stale, and a server must
 *    answer for skills it does not list), so a skill is also reached by its namespaced URI;
 *  - `resources/directory/read` (declared as `directoryRead`): relayed to a server that lists
 *    directories, else worked out from the skill's entry; the folders above the served skills
 *    are listed too.
 * Files are read with `resources/read` (resource-routes.ts), byte for byte, so that they verify
 * against the entry the client holds. The gateway checks no digest itself: a digest from the
 * same server as the content proves nothing a relay could not forge (SEP-2640 "Digests Are Not
 * a Trust Anchor"); the client that loads a skill verifies it.
 */

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Entries per `skills/list` page. */
export const SKILLS_PAGE_SIZE = 100;

export interface SkillRouteDeps {
  readonly host: Host;
  /** Whether the principal may reach `server` at all. */
  allows(server: string): boolean;
  /** Whether `expose.skills` lets the skill of `server` at folder `root` (the server's own) through. */
  keeps(server: string, root: string): boolean;
  /** The skills this caller is served now. */
  served(): ExposedSkills;
  /** Who asks, for the audit (the principal's id). */
  readonly session: string;
  readonly limits?: InputLimits;
}

const ListParams = z.looseObject({ cursor: z.string().optional() });
const GetParams = z.looseObject({ uri: z.string() });
const DirectoryParams = z.looseObject({ uri: z.string(), cursor: z.string().optional() });

/** Registers `skills/list`, `skills/get` and `resources/directory/read`. */
export function registerSkillRoutes(server: Server, deps: SkillRouteDeps): void {
  const { host } = deps;
  server.setRequestHandler('skills/list', { params: ListParams }, async (params, ctx) => {
    await untilStarted(host);
    const all = deps.served().skills;
    const start = params.cursor === undefined ? 0 : offsetOf(params.cursor, all.length);
    const end = start + SKILLS_PAGE_SIZE;
    return {
      skills: all.slice(start, end).map((s) => s.skill),
      ...(end < all.length && { nextCursor: cursorOf(end) }),
      ...cacheFields(ctx),
    };
  });

  server.setRequestHandler('skills/get', { params: GetParams }, async (params, ctx) => {
    const { uri } = params;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    await untilStarted(host);
    const target = skillTarget(deps, uri);
    if (!target) throw notServed(uri);
    const fresh = await forwarded(() =>
      host.skills.get(target.server, target.uri, { signal: ctx.mcpReq.signal, session: deps.session }),
    );
    // Served as listed: under the folder the request named; a skill expose filters out is not there.
    const originalRoot = skillRoot(fresh.uri);
    const skill = originalRoot !== undefined ? rebased(fresh, originalRoot, target.root) : undefined;
    if (!skill || originalRoot === undefined || !deps.keeps(target.server, originalRoot))
      throw notServed(uri);
    return { skill, ...cacheFields(ctx) };
  });

  server.setRequestHandler('resources/directory/read', { params: DirectoryParams }, async (params, ctx) => {
    const { uri } = params;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    // One page always: a cursor is never handed out, so none can come back.
    if (params.cursor !== undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown cursor for ${uri}: directory reads are one page`,
      );
    await untilStarted(host);
    const served = deps.served();
    const inside = served.resolve(uri);
    if (!inside) {
      const above = hasDotSegment(uri) ? undefined : listingAbove(served, uri);
      if (!above) throw notDirectory(uri);
      return { resources: above, ...cacheFields(ctx) };
    }
    if (!host.skills.directoryRead(inside.server)) {
      const fromEntry = listingFromEntry(served, uri);
      if (!fromEntry) throw notDirectory(uri);
      return { resources: fromEntry, ...cacheFields(ctx) };
    }
    const children = await forwarded(async () => {
      try {
        return await host.skills.readDirectory(inside.server, inside.uri, {
          signal: ctx.mcpReq.signal,
          session: deps.session,
        });
      } catch (error) {
        throw isSwitchboardError(error, 'NOT_FOUND') ? notDirectory(uri) : error;
      }
    });
    // The upstream's children under the client's URIs; any it names outside the skill is left out.
    const { skill } = inside;
    const resources = children.flatMap((child) => {
      const under = child.uri === skill.originalRoot || child.uri.startsWith(`${skill.originalRoot}/`);
      return under ? [{ ...child, uri: `${skill.root}${child.uri.slice(skill.originalRoot.length)}` }] : [];
    });
    return { resources, ...cacheFields(ctx) };
  });
}

/**
 * Where a `skills/get` URI goes: a served skill's `SKILL.md`, or a namespaced URI of a server
 * the caller may reach that serves skills (a skill it does not list is still reachable).
 */
function skillTarget(
  deps: SkillRouteDeps,
  uri: string,
): { readonly server: string; readonly uri: string; readonly root: string } | undefined {
  if (hasDotSegment(uri)) return undefined;
  const listed = deps.served().bySkillUri(uri);
  if (listed) return { server: listed.server, uri: listed.original.uri, root: listed.root };
  const root = skillRoot(uri);
  if (root === undefined) return undefined;
  const servers = new Set(
    deps.host
      .servers()
      .map((s) => s.name)
      .filter(
        (name) =>
          deps.allows(name) && deps.host.upstreamProtocol(name).capabilities?.extensions?.[SKILLS_EXTENSION],
      ),
  );
  const named = parseNamespacedUri(uri, servers);
  return named && { server: named.server, uri: named.uri, root };
}

/** `ttlMs` and `cacheScope`, which every result of the extension carries on 2026-07-28 (SEP-2549). */
function cacheFields(ctx: ServerContext): { ttlMs?: number; cacheScope?: 'private' } {
  // Per caller (grants differ) and live (the catalog changes): never to be served from a cache.
  return ctx.mcpReq.envelope === undefined ? {} : { ttlMs: 0, cacheScope: 'private' };
}

function notServed(uri: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${uri}`);
}

function notDirectory(uri: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${uri} is not a directory resource served here`);
}

function cursorOf(offset: number): string {
  return Buffer.from(`skills:${offset}`).toString('base64url');
}

function offsetOf(cursor: string, total: number): number {
  const match = /^skills:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const offset = match ? Number(match[1]) : Number.NaN;
  if (!(offset > 0))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Unknown cursor: list the skills again from the start',
    );
  // Skills that went since the last page make it shorter: the walk ends, it does not fail.
  return Math.min(offset, total);
}
