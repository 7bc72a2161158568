import { UriTemplate } from '@modelcontextprotocol/server';
import type { Attributed } from '../../host/catalog/catalog.js';

/**
 * The URIs the gateway serves upstream resources and resource templates under. A URI (or URI
 * template) that exactly one exposed server offers passes through as the upstream wrote it.
 * One that two or more exposed servers offer would be ambiguous, and one in the gateway's own
 * `switchboard:` scheme could pass for the gateway's (or another server's mapped) resource, so each
 * of those is served as
 * `switchboard://resource/<server>/<the original>`, the original written after the server's
 * segment verbatim. Verbatim rather than percent-encoded because of templates: a mapped
 * template is that same prefix before the original template, so whatever a client expands it
 * to is the prefix before the original's expansion with the same values, and cutting the
 * prefix off gives back exactly the URI the server expects. Percent-encoding the original
 * could not do that: a template's literal parts would be encoded once but the escapes that
 * expansion puts in the values would not, and decoding would turn a value's `%2F` into `/`.
 * The result is still a URI (RFC 3986 §3.3: `:` and empty segments are path characters);
 * the original's query and fragment, if any, become the mapped URI's.
 *
 * Only what the gateway lists is mapped. URIs inside tool results (embedded resources,
 * resource links) and prompt messages are passed on as the server wrote them; a client reads
 * those through the tool's server, not through these lists. Pure.
 */

/** What a mapped URI starts with; the server's name and the original URI follow. */
export const MAPPED_RESOURCE_PREFIX = 'switchboard://resource/';
const OWN_SCHEME = 'switchboard:';

/** Where a served URI goes: the server and the URI that server knows the resource by. */
export interface ResourceTarget {
  readonly server: string;
  readonly uri: string;
}

/** The served resources and templates of one catalog snapshot, and the way back from a served URI. */
export interface ExposedResources<
  R extends { readonly uri: string },
  T extends { readonly uriTemplate: string },
> {
  /** Served URI → the resource as its server lists it, in catalog order. */
  readonly resources: ReadonlyMap<string, Attributed<R>>;
  /** Served URI template → the template as its server lists it, in catalog order. */
  readonly templates: ReadonlyMap<string, Attributed<T>>;
  /**
   * Where a URI a client sends (`resources/read`, `resources/subscribe`) goes: a served
   * resource's URI; a mapped URI whose server offers the original (a listed resource, or an
   * instance of one of its templates, mapped or not); or an instance of a template served
   * unmapped. Undefined when nothing exposed accounts for it — an instance of templates that
   * collide must come mapped, since it could belong to any of their servers.
   */
  resolve(uri: string): ResourceTarget | undefined;
}

/** The gateway URI of `uri` (or of a URI template) as offered by `server`. */
export function mappedResourceUri(server: string, uri: string): string {
  return `${MAPPED_RESOURCE_PREFIX}${encodeURIComponent(server)}/${uri}`;
}

/** The server and original URI a mapped URI names, or undefined when `uri` is not one. */
export function parseMappedResourceUri(uri: string): ResourceTarget | undefined {
  if (!uri.startsWith(MAPPED_RESOURCE_PREFIX)) return undefined;
  const rest = uri.slice(MAPPED_RESOURCE_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: rest.slice(slash + 1) };
  } catch {
    return undefined; // A malformed escape in the server's segment: not a URI we made.
  }
}

/**
 * Serves `resources` and `templates` (already through the expose filter and the principal's
 * grants) under their passthrough or mapped URIs. The first of several entries one server
 * lists with the same URI is kept.
 */
export function exposedResources<
  R extends { readonly uri: string },
  T extends { readonly uriTemplate: string },
>(resources: readonly Attributed<R>[], templates: readonly Attributed<T>[]): ExposedResources<R, T> {
  const served = serveUnambiguously(resources, (r) => r.item.uri);
  const servedTemplates = serveUnambiguously(templates, (t) => t.item.uriTemplate);
  const offered = new Set(resources.map((r) => targetKey(r.server, r.item.uri)));
  const compiled = new Map<Attributed<T>, UriTemplate | null>();
  const matches = (template: Attributed<T>, uri: string): boolean => {
    let parsed = compiled.get(template);
    if (parsed === undefined) {
      parsed = compileTemplate(template.item.uriTemplate);
      compiled.set(template, parsed);
    }
    return parsed?.match(uri) != null;
  };
  return {
    resources: served,
    templates: servedTemplates,
    resolve(uri) {
      const direct = served.get(uri);
      if (direct) return { server: direct.server, uri: direct.item.uri };
      const mapped = parseMappedResourceUri(uri);
      if (mapped) {
        if (offered.has(targetKey(mapped.server, mapped.uri))) return mapped;
        for (const t of servedTemplates.values()) {
          if (t.server === mapped.server && matches(t, mapped.uri)) return mapped;
        }
      }
      for (const [name, t] of servedTemplates) {
        if (name === t.item.uriTemplate && matches(t, uri)) return { server: t.server, uri };
      }
      return undefined;
    },
  };
}

/**
 * Contents read for a mapped URI carry the URI the client asked for, not the upstream's;
 * parts naming some other URI (a server may return several) are left as they are.
 */
export function contentsAsServed<C extends { readonly uri: string }>(
  contents: readonly C[],
  target: ResourceTarget,
  asked: string,
): C[] {
  return contents.map((c) => (c.uri === target.uri && asked !== target.uri ? { ...c, uri: asked } : c));
}

/** Served key → entry: unique keys as they are; keys offered by two or more servers, or in our scheme, mapped. */
function serveUnambiguously<X>(
  entries: readonly Attributed<X>[],
  keyOf: (entry: Attributed<X>) => string,
): Map<string, Attributed<X>> {
  const servers = new Map<string, Set<string>>();
  for (const e of entries) {
    const key = keyOf(e);
    const set = servers.get(key) ?? new Set<string>();
    set.add(e.server);
    servers.set(key, set);
  }
  const out = new Map<string, Attributed<X>>();
  for (const e of entries) {
    const key = keyOf(e);
    const passes = servers.get(key)?.size === 1 && !key.startsWith(OWN_SCHEME);
    const name = passes ? key : mappedResourceUri(e.server, key);
    if (!out.has(name)) out.set(name, e);
  }
  return out;
}

function targetKey(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}

/** An upstream's template, or null when it is not one the SDK can parse (then it matches nothing). */
function compileTemplate(template: string): UriTemplate | null {
  try {
    return new UriTemplate(template);
  } catch {
    return null;
  }
}
