import type { ResourceTemplateType } from '@modelcontextprotocol/client';
import { ResourceNotFoundError, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { isAppUri } from '../../core/mcp-apps.js';
import type { Attributed, CatalogSnapshot } from '../../host/catalog/catalog.js';
import type { Host } from '../../host/host.js';
import {
  type ResourceSubscriptions,
  sharedResourceSubscriptions,
} from '../../host/resource-subscriptions.js';
import { exposeFilter } from './exposed-names.js';
import { contentsAsServed } from './exposed-resources.js';
import type { ExposedSkills } from './exposed-skills.js';
import { type InputLimits, refuseOversized } from './input-caps.js';
import { isOwnResourceUri, ownResource, ownResources, ownResourceTemplates } from './own-resources.js';
import { type Served, servedResources } from './served-catalog.js';
import { untilStarted } from './startup-wait.js';
import { unservedResource } from './unserved.js';
import { forwarded } from './upstream-calls.js';

/**
 * The gateway's `resources/*` methods: the upstream resources and templates a principal may
 * see, under URIs that say which server to ask when two offer the same one
 * (exposed-resources.ts), next to the gateway's own status resources; reads routed by those
 * URIs; and a 2025 session's subscriptions held upstream (resource-subscriptions.ts), with
 * each upstream `notifications/resources/updated` passed on under the URI the session
 * subscribed with. A 2026-07-28 client has no `resources/subscribe`: its updates come through
 * `subscriptions/listen`, which the SDK's handler serves.
 */

export interface ResourceRouteDeps {
  readonly host: Host;
  /** Whether the principal may reach `server` at all. */
  allows(server: string): boolean;
  /** Who reads, for the audit (the principal's id). */
  readonly session?: string;
  /** Caps on what a client sends on (input-caps.ts): a URI is held to the string length. */
  readonly limits?: InputLimits;
  /** Globs over URIs and URI templates: which upstream resources may be served. */
  readonly expose: readonly string[];
  /** Where upstream subscriptions are counted. Default: the host's one, shared by every session. */
  readonly subscriptions?: ResourceSubscriptions;
  /**
   * MCP Apps views (app-routes.ts): whether the caller declared the extension (else `ui://`
   * resources are not there for it), the server whose served tools name a view URI (a view
   * its server does not list is read from there), and where a read view is noted. Absent:
   * views are resources like any.
   */
  readonly apps?: {
    declared(ctx: ServerContext): boolean;
    viewServer(uri: string): string | undefined;
    /** The caller of `ctx` read a view of `server` (opened-views.ts). */
    read(ctx: ServerContext, server: string): void;
  };
  /**
   * The skills this caller is served (skill-routes.ts): their files are listed under the
   * skills' served URIs and read there, byte for byte (they are verified against the entry by
   * the client that loads them), whether or not `expose` lets other resources through.
   */
  readonly skills?: () => ExposedSkills;
}

/** What the rest of the server needs of the resource routes. */
export interface ResourceRoutes {
  /** The served template `uriTemplate` names (a completion's `ref/resource`), as its server lists it. */
  template(uriTemplate: string): Attributed<ResourceTemplateType> | undefined;
}

/** Registers `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe` and `resources/unsubscribe`. */
export function registerResourceRoutes(server: Server, deps: ResourceRouteDeps): ResourceRoutes {
  const { host } = deps;
  const keep = exposeFilter(deps.expose);
  let cached: { snapshot: CatalogSnapshot; served: Served } | undefined;
  // Computed once per catalog snapshot: every read and subscribe resolves its URI here.
  const served = (): Served => {
    const snapshot = host.catalog();
    if (cached?.snapshot !== snapshot) cached = { snapshot, served: servedResources(snapshot, deps, keep) };
    return cached.served;
  };
  /** Where `uri` goes upstream; the URI itself must pass the filter too (an instance of a template). */
  const target = (
    uri: string,
    ctx?: ServerContext,
  ): { server: string; uri: string; skill?: true } | undefined => {
    const skill = deps.skills?.().resolve(uri);
    if (skill) return { server: skill.server, uri: skill.uri, skill: true };
    const view = isAppUri(uri) && deps.apps;
    // A view is not there for a caller that did not declare MCP Apps.
    if (view && ctx && !view.declared(ctx)) return undefined;
    const found = served().resolve(uri);
    if (found) return keep(found.uri) ? found : undefined;
    const server = view ? view.viewServer(uri) : undefined;
    return server !== undefined && keep(uri) ? { server, uri } : undefined;
  };
  /** The served URIs a caller may see: `ui://` ones only by a caller that declared MCP Apps. */
  const shown = (ctx: ServerContext) => {
    const hide = deps.apps !== undefined && !deps.apps.declared(ctx);
    return (uri: string) => !hide || !isAppUri(uri);
  };

  server.setRequestHandler('resources/list', async (_request, ctx) => {
    await untilStarted(deps.host);
    const show = shown(ctx);
    const skills = deps.skills?.();
    return {
      resources: [
        ...ownResources(),
        ...[...served().resources]
          .filter(([uri]) => show(uri))
          .map(([name, r]) => {
            // A file of a served skill is listed where the skill serves it.
            const uri = skills?.servedUri(r.server, r.item.uri) ?? name;
            return uri === r.item.uri ? r.item : { ...r.item, uri };
          }),
      ],
    };
  });
  server.setRequestHandler('resources/templates/list', async (_request, ctx) => {
    await untilStarted(deps.host);
    const show = shown(ctx);
    return {
      resourceTemplates: [
        ...ownResourceTemplates(),
        ...[...served().templates]
          .filter(([uriTemplate]) => show(uriTemplate))
          .map(([uriTemplate, t]) =>
            uriTemplate === t.item.uriTemplate ? t.item : { ...t.item, uriTemplate },
          ),
      ],
    };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    if (isOwnResourceUri(uri)) {
      const own = ownResource(host, deps, uri);
      if (!own) throw new ResourceNotFoundError(uri);
      return own;
    }
    const to = target(uri, ctx);
    if (!to) throw unservedResource(host, { allows: deps.allows, keep }, uri);
    const result = await forwarded(() =>
      host.readResource(to.server, to.uri, {
        signal: ctx.mcpReq.signal,
        ...(deps.session && { session: deps.session }),
        // A view goes to a sandbox as its server wrote it (app-routes.ts); the guard is for text a model reads.
        // A skill's file too: it must arrive as its entry's digest says, and its loader guards it.
        ...(((isAppUri(to.uri) && deps.apps) || to.skill) && { raw: true }),
      }),
    );
    // A view read: its server's app-only tools are now there for this caller's views.
    if (isAppUri(to.uri)) deps.apps?.read(ctx, to.server);
    return { ...result, contents: contentsAsServed(result.contents, to, uri) };
  });

  // This session's subscriptions, by the URI it subscribed with: the pending or done upstream
  // subscription, whose result ends it.
  const subscriptions = deps.subscriptions ?? sharedResourceSubscriptions(host);
  const mine = new Map<string, Promise<() => Promise<void>>>();
  let closed = false;
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const uri = request.params.uri;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    // A repeated subscribe is the same one.
    if (closed || mine.has(uri)) return {};
    if (isOwnResourceUri(uri)) {
      // The gateway's own resources send no updates; one the caller cannot read is not there.
      if (!ownResource(host, deps, uri)) throw new ResourceNotFoundError(uri);
      return {};
    }
    const to = target(uri, ctx);
    if (!to) throw unservedResource(host, { allows: deps.allows, keep }, uri);
    const notify = () => void server.sendResourceUpdated({ uri }).catch(() => undefined);
    const pending = subscriptions.add(to.server, to.uri, notify);
    mine.set(uri, pending);
    try {
      await forwarded(() => pending);
    } catch (error) {
      if (mine.get(uri) === pending) mine.delete(uri);
      throw error;
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    await end(request.params.uri);
    return {};
  });
  const end = async (uri: string): Promise<void> => {
    const pending = mine.get(uri);
    mine.delete(uri);
    const stop = await pending?.catch(() => undefined);
    await stop?.();
  };
  // A session that ends, however it ends, leaves every subscription it held.
  const previous = server.onclose;
  server.onclose = () => {
    closed = true;
    for (const uri of [...mine.keys()]) void end(uri);
    previous?.();
  };

  return {
    template: (uriTemplate) => served().templates.get(uriTemplate),
  };
}
