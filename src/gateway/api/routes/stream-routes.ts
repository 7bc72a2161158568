import { visibleCatalogEtag } from '../catalog-etag.js';
import type { LiveChange } from '../live-feed.js';
import { type ApiDeps, type ApiRoute, defineRoute } from '../route.js';
import { visibleServers } from '../server-view.js';
import { openSse } from '../sse.js';
import { visibleInbox } from './inbox-routes.js';

/**
 * `GET /api/stream`: what the dashboard keeps current, as SSE. First a `servers` and an
 * `inbox` snapshot and the catalog's etag; then a new `servers` list whenever a server's state or offer changed, a
 * new `inbox` list whenever an item came or went, `catalog` with the etag of what the caller sees of the
 * catalog when that changed, and each server notification as an `event` (its id as the SSE
 * `id:`). Lists are whole lists, as the caller may see them, sent only when they differ from
 * the last one sent; changes of one moment are sent together, once.
 */
export function streamRoutes({ host, feed, track, inbox, replicas }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/stream',
      tag: 'stream',
      summary: 'Follow servers, the inbox, the catalog and server events',
      description:
        'SSE events (ApiStreamEvent): `servers` ({ servers }), `inbox` ({ items }), `catalog` ({ etag }) and ' +
        '`event` (ApiEvent, with its id as the SSE id). Opens with a `servers` and an `inbox` snapshot and a ' +
        '`catalog` etag. ' +
        'While a stream is open, approvals wait in the inbox for an answer.',
      responses: { 200: { description: 'The events, until the client closes the stream.', sse: true } },
      handle: async ({ ctx, caller }) => {
        const { principal } = caller;
        const stream = openSse({ signal: ctx.signal });
        track(stream);
        const last = { servers: '', inbox: '' };
        const sendList = (kind: 'servers' | 'inbox') => {
          const data =
            kind === 'servers'
              ? { servers: visibleServers(host, principal, replicas) }
              : { items: visibleInbox(inbox.items(), principal) };
          const text = JSON.stringify(data);
          if (text === last[kind]) return;
          last[kind] = text;
          stream.send(kind, data);
        };
        // A burst of changes (a server connecting moves through several states) is one list.
        const due = new Set<'servers' | 'inbox'>();
        const flush = () => {
          for (const kind of due) sendList(kind);
          due.clear();
        };
        const onChange = (change: LiveChange) => {
          if (stream.closed) return;
          if (change.kind === 'servers' || change.kind === 'inbox') {
            if (due.size === 0) queueMicrotask(flush);
            due.add(change.kind);
          } else if (change.kind === 'catalog') sendCatalog();
          else if (principal.allows(change.event.server)) stream.send('event', change.event, change.event.id);
        };
        // The etag of what this caller sees, sent when that changed (a change behind another
        // caller's grants is no news here).
        let lastEtag = '';
        const sendCatalog = () => {
          const etag = visibleCatalogEtag(host.catalog(), principal);
          if (etag === lastEtag) return;
          lastEtag = etag;
          stream.send('catalog', { etag });
        };
        sendList('servers');
        sendList('inbox');
        sendCatalog();
        const unsubscribe = feed.subscribe(onChange);
        stream.onClose(unsubscribe);
        return stream.response;
      },
    }),
  ];
}
