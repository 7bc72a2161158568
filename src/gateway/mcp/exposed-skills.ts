import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { Attributed } from '../../host/catalog/catalog.js';
import type { NamingMode } from './exposed-names.js';
import { MAPPED_RESOURCE_PREFIX, parseMappedResourceUri } from './exposed-resources.js';

/**
 * The URIs the gateway serves its upstreams' skills under (MCP Skills extension, SEP-2640).
 * A skill is the pair of its server and its URI, and through the gateway a client sees one
 * server, so a skill's URI must say which upstream it belongs to whenever it could be
 * another's. Namespaced, a `skill://` skill gets the server's name as the first segment of its
 * path: `skill://pdf-processing/SKILL.md` of server `docs` is served as
 * `skill://docs/pdf-processing/SKILL.md`. That is what the SEP calls an organisational prefix:
 * the last segment is still the skill's name, every file keeps its path below the skill's
 * folder, and nothing is rewritten inside the files or the entry but URIs, so every digest
 * and size still holds. A skill under another scheme is served as the gateway's mapped
 * resource URI (`switchboard://resource/<server>/<the original>`, exposed-resources.ts),
 * which also ends in its folder and `SKILL.md`.
 *
 * `namespaced` namespaces every skill. `passthrough-unique` serves a skill's URIs as the
 * upstream wrote them when no other server's skill folder is the same, above or below it
 * (else a read below both could go to either), and namespaces the rest; a folder passed
 * through that a namespaced one would then overlap is namespaced too, until none does.
 *
 * Every file of a served skill is reached at its served folder plus its path below the
 * original folder: listed or not (a `"dynamic"` skill lists none), the upstream says whether
 * it exists. A URI with a `.` or `..` segment, plain or percent-encoded, resolves to nothing,
 * so no spelling reaches a folder the listing did not name. Pure.
 */

/** One skill as served: its server, its entry with served URIs, and both folders. */
export interface ServedSkill {
  readonly server: string;
  /** The entry as the client sees it: `uri` and each file's `uri` served; the rest untouched. */
  readonly skill: Skill;
  /** The entry as the server listed it. */
  readonly original: Skill;
  /** The served folder: `skill.uri` without `/SKILL.md`. */
  readonly root: string;
  /** The server's folder: `original.uri` without `/SKILL.md`. */
  readonly originalRoot: string;
}

/** Where a served URI goes: the server, the URI it knows the file by, and the skill it is in. */
export interface SkillTarget {
  readonly server: string;
  readonly uri: string;
  readonly skill: ServedSkill;
}

/** The skills one caller is served, and the ways back from served URIs. */
export interface ExposedSkills {
  /** In catalog order. */
  readonly skills: readonly ServedSkill[];
  /** The served skill whose `SKILL.md` is at `uri`. */
  bySkillUri(uri: string): ServedSkill | undefined;
  /** Where a served URI at or below a served skill's folder goes (the deepest such skill). */
  resolve(uri: string): SkillTarget | undefined;
  /** The URI a file of `server` at `uri` is served under, when it is in one of its served skills. */
  servedUri(server: string, uri: string): string | undefined;
}

const MANIFEST = '/SKILL.md';
const SKILL_SCHEME = 'skill://';

/** A skill's folder: its `SKILL.md` URI without `/SKILL.md`. */
export function skillRoot(uri: string): string | undefined {
  return uri.endsWith(MANIFEST) && uri.length > MANIFEST.length ? uri.slice(0, -MANIFEST.length) : undefined;
}

/** The namespaced folder of `server`'s skill folder `root`. */
export function namespacedRoot(server: string, root: string): string {
  return root.startsWith(SKILL_SCHEME)
    ? `${SKILL_SCHEME}${encodeURIComponent(server)}/${root.slice(SKILL_SCHEME.length)}`
    : `${MAPPED_RESOURCE_PREFIX}${encodeURIComponent(server)}/${root}`;
}

/**
 * The server and the URI it knows a namespaced URI by, when `uri` is namespaced for one of
 * `servers` (a `skill://<server>/…` URI, or a mapped resource URI); undefined otherwise.
 */
export function parseNamespacedUri(
  uri: string,
  servers: ReadonlySet<string>,
): { readonly server: string; readonly uri: string } | undefined {
  const mapped = parseMappedResourceUri(uri);
  if (mapped) return servers.has(mapped.server) ? mapped : undefined;
  if (!uri.startsWith(SKILL_SCHEME)) return undefined;
  const rest = uri.slice(SKILL_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  let server: string;
  try {
    server = decodeURIComponent(rest.slice(0, slash));
  } catch {
    return undefined;
  }
  const inner = rest.slice(slash + 1);
  return servers.has(server) && inner !== '' ? { server, uri: `${SKILL_SCHEME}${inner}` } : undefined;
}

/**
 * What `expose.skills` globs are matched against: `<server>/<skill path>`, the skill's folder
 * without `skill://` (`docs/acme/billing/refunds`), or with its whole URI under another scheme.
 */
export function skillSubject(server: string, originalRoot: string): string {
  const path = originalRoot.startsWith(SKILL_SCHEME) ? originalRoot.slice(SKILL_SCHEME.length) : originalRoot;
  return `${server}/${path}`;
}

/** Whether `uri` has a `.` or `..` segment, or an empty one, in plain or percent-encoded form. */
export function hasDotSegment(uri: string): boolean {
  const at = uri.indexOf('://');
  const path = (at < 0 ? uri : uri.slice(at + 3)).split(/[?#]/)[0] ?? '';
  // Without an escape, the plain form says it all (every read asks: this is the common case).
  if (!path.includes('%')) return PLAIN_DOT_OR_EMPTY.test(path);
  return path.split('/').some((segment, i, all) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return true; // a malformed escape: no URI we serve
    }
    const last = i === all.length - 1;
    return decoded === '.' || decoded === '..' || (decoded === '' && !last) || decoded.includes('/');
  });
}

/** A `.` or `..` segment, or an empty one before the last, in a path without escapes. */
const PLAIN_DOT_OR_EMPTY = /(?:^|\/)\.{1,2}(?:\/|$)|\/\/|^\//;

/** `entry` with every URI under `from` moved under `to`; undefined when a file is not under `from`. */
export function rebased(entry: Skill, from: string, to: string): Skill | undefined {
  const move = (uri: string) => (uri.startsWith(`${from}/`) ? `${to}${uri.slice(from.length)}` : undefined);
  const uri = move(entry.uri);
  if (uri === undefined) return undefined;
  if (entry.resources === 'dynamic') return { ...entry, uri };
  const resources = [];
  for (const file of entry.resources) {
    const moved = move(file.uri);
    if (moved === undefined) return undefined;
    resources.push({ ...file, uri: moved });
  }
  return { ...entry, uri, resources };
}

/**
 * Serves `skills` (already through the expose filter and the caller's grants) per `naming`.
 * The first of several entries one server lists with the same URI is kept; an entry a file of
 * which is not spelled below its folder (the SDK accepts other spellings of the same file) is
 * left out, since it could not be served consistently.
 */
export function exposedSkills(skills: readonly Attributed<Skill>[], naming: NamingMode): ExposedSkills {
  const candidates: { server: string; item: Skill; root: string }[] = [];
  const seen = new Set<string>();
  for (const { server, item } of skills) {
    const root = skillRoot(item.uri);
    const key = JSON.stringify([server, item.uri]);
    if (root === undefined || seen.has(key)) continue;
    seen.add(key);
    candidates.push({ server, item, root });
  }
  // Indexed by folder, so each check costs a skill's depth, not the number of skills.
  const originals = new FolderIndex();
  for (const c of candidates) originals.add(c.root, c.server);
  const namespaced = new Set<number>();
  candidates.forEach((c, i) => {
    const ours = c.root.startsWith('switchboard:');
    if (naming === 'namespaced' || ours || originals.clashes(c.root, c.server)) namespaced.add(i);
  });
  // A folder passed through must not overlap a namespaced one either: repeat until none does.
  for (let changed = true; changed; ) {
    changed = false;
    const taken = new FolderIndex();
    for (const i of namespaced) taken.add(namespacedRoot(candidates[i]!.server, candidates[i]!.root), '');
    candidates.forEach((c, i) => {
      if (!namespaced.has(i) && taken.clashes(c.root, undefined)) {
        namespaced.add(i);
        changed = true;
      }
    });
  }
  const served: ServedSkill[] = [];
  candidates.forEach((c, i) => {
    const root = namespaced.has(i) ? namespacedRoot(c.server, c.root) : c.root;
    const skill = rebased(c.item, c.root, root);
    if (skill) served.push({ server: c.server, skill, original: c.item, root, originalRoot: c.root });
  });
  const byUri = new Map(served.map((s) => [s.skill.uri, s]));
  // By folder, so a URI is resolved by looking its own folders up, deepest first: a nested
  // skill of one server wins over its enclosing one, and the cost is the URI's depth.
  const byRoot = new Map(served.map((s) => [s.root, s]));
  const byOriginal = new Map(served.map((s) => [JSON.stringify([s.server, s.originalRoot]), s]));
  const deepestFirst = (uri: string) => [uri, ...ancestors(uri).reverse()];
  return {
    skills: served,
    bySkillUri: (uri) => byUri.get(uri),
    resolve(uri) {
      if (hasDotSegment(uri)) return undefined;
      for (const folder of deepestFirst(uri)) {
        const skill = byRoot.get(folder);
        if (skill)
          return { server: skill.server, uri: `${skill.originalRoot}${uri.slice(skill.root.length)}`, skill };
      }
      return undefined;
    },
    servedUri(server, uri) {
      for (const folder of deepestFirst(uri)) {
        const skill = byOriginal.get(JSON.stringify([server, folder]));
        if (skill) return `${skill.root}${uri.slice(skill.originalRoot.length)}`;
      }
      return undefined;
    },
  };
}

/**
 * Folders and the servers they belong to, answering whether a folder of another server is
 * the same as a given one, holds it, or sits in it.
 */
class FolderIndex {
  private readonly exact = new Map<string, Set<string>>();
  /** A folder → the servers with a folder strictly below it. */
  private readonly above = new Map<string, Set<string>>();

  add(root: string, server: string): void {
    put(this.exact, root, server);
    for (const folder of ancestors(root)) put(this.above, folder, server);
  }

  /** Whether a folder of a server other than `server` (of any, when undefined) overlaps `root`. */
  clashes(root: string, server: string | undefined): boolean {
    const other = (servers: Set<string> | undefined) =>
      servers !== undefined && (server === undefined || servers.size > 1 || !servers.has(server));
    if (other(this.exact.get(root)) || other(this.above.get(root))) return true;
    return ancestors(root).some((folder) => other(this.exact.get(folder)));
  }
}

function put(map: Map<string, Set<string>>, key: string, server: string): void {
  const set = map.get(key);
  if (set) set.add(server);
  else map.set(key, new Set([server]));
}

/** The folders holding `root`, outermost first: `skill://a`, `skill://a/b` for `skill://a/b/c`. */
function ancestors(root: string): string[] {
  const scheme = root.indexOf('://');
  const out: string[] = [];
  for (let at = root.indexOf('/', scheme < 0 ? 0 : scheme + 3); at >= 0; at = root.indexOf('/', at + 1))
    out.push(root.slice(0, at));
  return out;
}
