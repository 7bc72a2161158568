import type { ResourceTemplateType } from '@modelcontextprotocol/client';
import { ResourceNotFoundError, type Server } from '@modelcontextprotocol/server';
import type { Attributed, CatalogSnapshot } from '../../host/catalog/catalog.js';
import type { Host } from '../../host/host.js';
import {
  type ResourceSubscriptions,
  sharedResourceSubscriptions,
} from '../../host/resource-subscriptions.js';
import { exposeFilter } from './exposed-names.js';
import { contentsAsServed } from './exposed-resources.js';
import { type InputLimits, refuseOversized } from './input-caps.js';
import { isOwnResourceUri, ownResource, ownResources, ownResourceTemplates } from './own-resources.js';
import { type Served, servedResources } from './served-catalog.js';
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
  const target = (uri: string) => {
    const found = served().resolve(uri);
    return found && keep(found.uri) ? found : undefined;
  };

  server.setRequestHandler('resources/list', () => ({
    resources: [
      ...ownResources(),
      ...[...served().resources].map(([uri, r]) => (uri === r.item.uri ? r.item : { ...r.item, uri })),
    ],
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      ...ownResourceTemplates(),
      ...[...served().templates].map(([uriTemplate, t]) =>
        uriTemplate === t.item.uriTemplate ? t.item : { ...t.item, uriTemplate },
      ),
    ],
  }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    if (isOwnResourceUri(uri)) {
      const own = ownResource(host, deps, uri);
      if (!own) throw new ResourceNotFoundError(uri);
      return own;
    }
    const to = target(uri);
    if (!to) throw unservedResource(host, { allows: deps.allows, keep }, uri);
    const result = await forwarded(() =>
      host.readResource(to.server, to.uri, {
        signal: ctx.mcpReq.signal,
        ...(deps.session && { session: deps.session }),
      }),
    );
    return { ...result, contents: contentsAsServed(result.contents, to, uri) };
  });

  // This session's subscriptions, by the URI it subscribed with: the pending or done upstream
  // subscription, whose result ends it.
  const subscriptions = deps.subscriptions ?? sharedResourceSubscriptions(host);
  const mine = new Map<string, Promise<() => Promise<void>>>();
  let closed = false;
  server.setRequestHandler('resources/subscribe', async (request) => {
    const uri = request.params.uri;
    if (deps.limits) refuseOversized({ uri }, deps.limits);
    // A repeated subscribe is the same one.
    if (closed || mine.has(uri)) return {};
    if (isOwnResourceUri(uri)) {
      // The gateway's own resources send no updates; one the caller cannot read is not there.
      if (!ownResource(host, deps, uri)) throw new ResourceNotFoundError(uri);
      return {};
    }
    const to = target(uri);
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
