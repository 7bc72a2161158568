/**
 * The API's router: a route is a method and a path template whose `{param}` segments match
 * one non-empty path segment each (the OpenAPI notation, so the same template documents it).
 * Where two templates match a path, the one with more literal segments wins. A path that a
 * route knows, asked with another method, is told which methods it has (405 and `Allow`,
 * RFC 9110 §15.5.6). Pure: no I/O.
 */

/** The methods API routes use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the router needs of a route. */
export interface Routable {
  readonly method: HttpMethod;
  /** e.g. `/api/servers/{name}/enable`. */
  readonly path: string;
}

/** What a path and method came to. */
export type RouteLookup<R> =
  | { readonly kind: 'found'; readonly route: R; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly HttpMethod[] }
  | { readonly kind: 'not_found' }
  /** A `{param}` segment is not valid percent-encoding. */
  | { readonly kind: 'bad_path'; readonly segment: string };

type Segment = { readonly literal: string } | { readonly param: string };

interface Compiled<R> {
  readonly route: R;
  readonly segments: readonly Segment[];
  readonly literals: number;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The names of the `{param}` segments of a path template, in order. */
export function pathParams(template: string): string[] {
  return splitPath(template).flatMap((s) => {
    const m = PARAM.exec(s);
    return m ? [m[1]!] : [];
  });
}

/** Finds the route of a method and path among `routes` (see the module comment for the rules). */
export class Router<R extends Routable> {
  private readonly compiled: readonly Compiled<R>[];

  constructor(readonly routes: readonly R[]) {
    const seen = new Set<string>();
    this.compiled = routes.map((route) => {
      const key = `${route.method} ${route.path.replace(/\{[^}]*\}/g, '{}')}`;
      if (seen.has(key)) throw new Error(`Two API routes for ${route.method} ${route.path}.`);
      seen.add(key);
      const segments = splitPath(route.path).map((s): Segment => {
        const m = PARAM.exec(s);
        return m ? { param: m[1]! } : { literal: s };
      });
      return { route, segments, literals: segments.filter((s) => 'literal' in s).length };
    });
  }

  match(method: string, pathname: string): RouteLookup<R> {
    // Empty segments (`//`, a trailing `/`) are kept: they match no literal and no parameter.
    const parts = pathname.split('/').slice(1);
    let best: Compiled<R>[] = [];
    for (const c of this.compiled) {
      if (!fits(c.segments, parts)) continue;
      if (best.length === 0 || c.literals > best[0]!.literals) best = [c];
      else if (c.literals === best[0]!.literals) best.push(c);
    }
    if (best.length === 0) return { kind: 'not_found' };
    const chosen = best.find((c) => c.route.method === method);
    if (!chosen) return { kind: 'method_not_allowed', allow: [...new Set(best.map((c) => c.route.method))] };
    const params: Record<string, string> = {};
    for (const [index, segment] of chosen.segments.entries()) {
      if (!('param' in segment)) continue;
      const raw = parts[index]!;
      try {
        params[segment.param] = decodeURIComponent(raw);
      } catch {
        return { kind: 'bad_path', segment: raw };
      }
    }
    return { kind: 'found', route: chosen.route, params };
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function fits(segments: readonly Segment[], parts: readonly string[]): boolean {
  if (segments.length !== parts.length) return false;
  return segments.every((s, i) => ('literal' in s ? s.literal === parts[i] : parts[i] !== ''));
}
