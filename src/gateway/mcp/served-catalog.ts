import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import { BoundedMemo } from '../../core/bounded-memo.js';
import type { CatalogSnapshot, CatalogTool } from '../../host/catalog/catalog.js';
import type { NameFilter } from '../../host/catalog/globs.js';
import type { Host } from '../../host/host.js';
import {
  MANAGEMENT_SERVER,
  MANAGEMENT_TOOLS,
  managementSubject,
} from '../../host/management/management-tools.js';
import {
  type ExposedPrompt,
  exposedPrompts,
  exposedTools,
  exposeFilter,
  type NamingMode,
} from './exposed-names.js';
import { type ExposedResources, exposedResources } from './exposed-resources.js';
import { type ExposedSkills, exposedSkills, skillRoot, skillSubject } from './exposed-skills.js';

/**
 * What one caller of the MCP endpoint is served of the catalog: tools, prompts and upstream
 * resources through `gateway.expose` and the caller's own grants, and management tools as far
 * as the caller may use them. Every list, call, completion and list-changed notification of
 * the endpoint is answered from these, so none of them shows a caller what another's grants
 * reach. Pure over a catalog snapshot.
 */

/** Who is calling: the authenticated principal (HTTP) or the local user (stdio). */
export interface GatewayPrincipal {
  readonly id: string;
  allows(server: string, tool?: string): boolean;
  /**
   * Whether the caller may add, change and remove servers (the management tools that do, as
   * the API's routes that do): registering a server can start any command, so only a caller
   * that may already do anything. Absent: it may not.
   */
  readonly canManage?: boolean;
  /**
   * Text that is the same exactly for callers served the same (an HTTP principal's kind, id,
   * grants and `canManage`); views are cached by it. Absent: the id and `canManage` decide.
   */
  readonly viewKey?: string;
}

/** What views of `principal` are cached under (see `viewKey`). */
export function viewKeyOf(principal: GatewayPrincipal): string {
  return principal.viewKey ?? `${principal.id}\u0000${principal.canManage === true}`;
}

/**
 * The tools `principal` is served, by served name: the catalog named per `naming`, through
 * the expose filter (`server/tool` globs) and the principal's own grants. With `management`,
 * the management tools too: `list_mcp` (read-only) like any tool, the ones that change
 * servers only for a principal that `canManage`.
 */
export function servedTools(
  host: Host,
  principal: GatewayPrincipal,
  naming: NamingMode,
  expose: readonly string[],
  management = false,
): Map<string, CatalogTool> {
  return servedToolsOf(host.catalog(), principal, naming, expose, management);
}

/** `servedTools` of one catalog snapshot. */
export function servedToolsOf(
  snapshot: CatalogSnapshot,
  principal: GatewayPrincipal,
  naming: NamingMode,
  expose: readonly string[],
  management: boolean,
): Map<string, CatalogTool> {
  // Every tools/call looks its tool up here: computed once per catalog snapshot and principal,
  // not once per call (a catalog can hold thousands of tools).
  let perSnapshot = servedCache.get(snapshot);
  if (!perSnapshot) {
    // Bounded: a snapshot is replaced on every catalog change, and principals are few.
    perSnapshot = new BoundedMemo(1_000);
    servedCache.set(snapshot, perSnapshot);
  }
  const manages = principal.canManage === true;
  const key = `${viewKeyOf(principal)}\u0000${naming}\u0000${management}\u0000${exposeKey(expose)}`;
  let served = perSnapshot.get(key);
  if (!served) {
    const keep = exposeFilter(expose);
    const extra = management ? managementTools().filter((t) => manages || isReadOnly(t)) : [];
    served = exposedTools(extra.length > 0 ? [...snapshot.tools, ...extra] : snapshot.tools, naming);
    for (const [name, t] of served) {
      if (!keep(`${t.server}/${t.tool.name}`) || !principal.allows(t.server, t.tool.name))
        served.delete(name);
    }
    perSnapshot.remember(key, served);
  }
  return served;
}

const servedCache = new WeakMap<object, BoundedMemo<Map<string, CatalogTool>>>();

/**
 * The prompts `principal` is served, by served name: the prompts of `snapshot` named per
 * `naming`, through the expose filter (`server/prompt` globs, compiled) and the principal's
 * grants of their server.
 */
export function servedPrompts(
  snapshot: CatalogSnapshot,
  principal: GatewayPrincipal,
  naming: NamingMode,
  keep: NameFilter,
): Map<string, ExposedPrompt<Prompt>> {
  const all = exposedPrompts(snapshot.prompts, naming);
  for (const [name, p] of all) {
    if (!keep(`${p.server}/${p.prompt.name}`) || !principal.allows(p.server)) all.delete(name);
  }
  return all;
}

/** What decides a caller's view besides its grants: the gateway's settings. */
export interface ViewSettings {
  readonly naming: NamingMode;
  readonly expose: {
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly prompts: readonly string[];
    /** Globs over `<server>/<skill path>`; absent: every skill. */
    readonly skills?: readonly string[];
  };
  readonly management: boolean;
}

/** One caller's view of one snapshot, per kind, as text that differs exactly when the lists do. */
export interface ViewPrint {
  readonly tools: string;
  readonly prompts: string;
  readonly resources: string;
}

/**
 * The view `principal` has of `snapshot`: what its `tools/list`, `prompts/list`, and
 * `resources/list` with `resources/templates/list` would answer, reduced to comparable text
 * (tools by served name and definition hash). A list-changed notification goes to a caller
 * whose view of that kind changed, and to no other.
 */
export function viewPrint(
  snapshot: CatalogSnapshot,
  principal: GatewayPrincipal,
  settings: ViewSettings,
): ViewPrint {
  const { naming, expose } = settings;
  const tools = servedToolsOf(snapshot, principal, naming, expose.tools, settings.management);
  const prompts = servedPrompts(snapshot, principal, naming, exposeFilter(expose.prompts));
  const resources = servedResources(snapshot, principal, exposeFilter(expose.resources));
  const skills = servedSkills(snapshot, principal, naming, expose.skills);
  return {
    tools: JSON.stringify([...tools].map(([name, t]) => [name, t.hash || t.tool])),
    prompts: JSON.stringify([...prompts].map(([name, p]) => [name, p.prompt])),
    resources: JSON.stringify([
      [...resources.resources].map(([uri, r]) => [uri, r.item]),
      [...resources.templates].map(([uri, t]) => [uri, t.item]),
      // A skill's change reaches clients as a change of the resources (SEP-2640).
      skills.skills.map((s) => s.skill),
    ]),
  };
}

/** Which of a caller's lists changed. */
export interface ListChanges {
  readonly tools: boolean;
  readonly prompts: boolean;
  readonly resources: boolean;
}

const EVERY_LIST: ListChanges = { tools: true, prompts: true, resources: true };

/**
 * Whose lists a catalog change changed. Each `next()`, called on a catalog change, compares
 * the snapshot now with the one of the previous call, per caller (once per view key within a
 * change): a caller is told of a kind only when its own view of that kind differs, so a
 * change behind another caller's grants, or outside `expose`, is no news to it.
 */
export class ViewChanges {
  #shown: CatalogSnapshot;

  constructor(
    private readonly host: Host,
    private readonly settings: ViewSettings,
  ) {
    this.#shown = host.catalog();
  }

  /** The changes since the last call, as a function of the caller. */
  next(): (principal: GatewayPrincipal) => ListChanges {
    const before = this.#shown;
    const now = this.host.catalog();
    this.#shown = now;
    if (before === now) return () => NO_CHANGE;
    const seen = new Map<string, ListChanges>();
    return (principal) => {
      const key = viewKeyOf(principal);
      let changes = seen.get(key);
      if (!changes) {
        const was = viewPrint(before, principal, this.settings);
        const is = viewPrint(now, principal, this.settings);
        changes = {
          tools: was.tools !== is.tools,
          prompts: was.prompts !== is.prompts,
          resources: was.resources !== is.resources,
        };
        seen.set(key, changes);
      }
      return changes;
    };
  }
}

const NO_CHANGE: ListChanges = { tools: false, prompts: false, resources: false };

/** For callers whose views are not followed: every list may have changed. */
export const everyListChanged = (): ListChanges => EVERY_LIST;

/** An expose list as a cache key part, joined once per list (the lists live as long as the gateway). */
function exposeKey(expose: readonly string[]): string {
  let key = exposeKeys.get(expose);
  if (key === undefined) {
    key = expose.join('\u0000');
    exposeKeys.set(expose, key);
  }
  return key;
}

const exposeKeys = new WeakMap<readonly string[], string>();

const managementTools = (): CatalogTool[] =>
  MANAGEMENT_TOOLS.map((t) => managementSubject(t.name)).filter((t): t is CatalogTool => t !== undefined);

/** A management tool that only reads (`list_mcp`), by its own annotation. */
function isReadOnly(tool: CatalogTool): boolean {
  return tool.server === MANAGEMENT_SERVER && tool.tool.annotations?.readOnlyHint === true;
}

/** The resources and templates one caller is served. */
export type Served = ExposedResources<Resource, ResourceTemplateType>;

/**
 * The upstream resources and templates of `snapshot` served to a caller: through the expose
 * filter (`keep`, over URIs and URI templates) and the caller's grants of their server, under
 * their served URIs (exposed-resources.ts).
 */
export function servedResources(
  snapshot: CatalogSnapshot,
  viewer: { allows(server: string): boolean },
  keep: NameFilter,
): Served {
  return exposedResources(
    snapshot.resources.filter((r) => keep(r.item.uri) && viewer.allows(r.server)),
    snapshot.resourceTemplates.filter((t) => keep(t.item.uriTemplate) && viewer.allows(t.server)),
  );
}

/** `expose.skills` when a gateway's settings leave it out: every skill. */
export const EVERY_SKILL: readonly string[] = ['*'];

/**
 * The skills of `snapshot` served to `principal`: through the expose globs (over
 * `<server>/<skill path>`) and its grants of their server, under their served URIs
 * (exposed-skills.ts). Worked out once per snapshot and view, however many requests ask:
 * a 2026-07-28 request builds a server of its own, and every resource read asks.
 */
export function servedSkills(
  snapshot: CatalogSnapshot,
  principal: GatewayPrincipal,
  naming: NamingMode,
  expose: readonly string[] = EVERY_SKILL,
): ExposedSkills {
  let perSnapshot = skillsCache.get(snapshot);
  if (!perSnapshot) {
    perSnapshot = new BoundedMemo(1_000);
    skillsCache.set(snapshot, perSnapshot);
  }
  const key = `${viewKeyOf(principal)}\u0000${naming}\u0000${exposeKey(expose)}`;
  const known = perSnapshot.get(key);
  if (known) return known;
  const keep = exposeFilter(expose);
  const served = exposedSkills(
    snapshot.skills.filter(
      (s) => principal.allows(s.server) && keep(skillSubject(s.server, skillRoot(s.item.uri) ?? s.item.uri)),
    ),
    naming,
  );
  return perSnapshot.remember(key, served);
}

const skillsCache = new WeakMap<object, BoundedMemo<ExposedSkills>>();
