import { z } from 'zod';
import { ApiProblem } from '../api-errors.js';
import { apiAuditPageSchema, apiEventPageSchema } from '../api-schemas.js';
import type { ApiAuditEntry, ApiPage } from '../api-types.js';
import { toApiEvent } from '../live-feed.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { serverFor } from '../server-view.js';

/**
 * What the store recorded, page by page, newest first: server events (`/api/events`) and the
 * audit log (`/api/audit`). A page's `nextCursor` is the `before` of the next one. The audit
 * log names every caller and call, so it is for callers that may manage servers.
 */

const MAX_PAGE = 500;
const limit = () =>
  z.coerce.number().int().min(1).max(MAX_PAGE).optional().describe(`Items per page, at most ${MAX_PAGE}.`);
const before = () =>
  z.coerce.number().int().min(1).optional().describe('The `nextCursor` of the previous page.');
const isoTime = (what: string) =>
  z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)), {
      message: 'must be an ISO-8601 time, e.g. 2026-01-31T12:00:00Z',
    })
    .optional()
    .describe(what);

const eventsQuery = z.strictObject({
  server: z.string().optional().describe('Only events of this server.'),
  before: before(),
  limit: limit(),
});

const auditQuery = z.strictObject({
  server: z.string().optional().describe('Only records about this server.'),
  actor: z.string().optional().describe('Only records of this actor (a session, e.g. `dashboard:local`).'),
  action: z.string().optional().describe('Only records of this action, e.g. `tool_call`.'),
  outcome: z.string().optional().describe('Only records with this outcome, e.g. `ok`, `denied`, `declined`.'),
  since: isoTime('Only records at or after this time (ISO-8601).'),
  until: isoTime('Only records before this time (ISO-8601).'),
  before: before(),
  limit: limit(),
});

/** The routes of `/api/events` and `/api/audit`. */
export function recordRoutes({ host }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/events',
      tag: 'events',
      summary: 'List server events, newest first',
      description:
        'Notifications servers sent (not logs or list changes), whether delivered to an agent or not.',
      query: eventsQuery,
      responses: { 200: { description: 'A page of events.', schema: apiEventPageSchema } },
      handle: async ({ query, caller }) => {
        if (query.server !== undefined) serverFor(host, caller.principal, query.server);
        const page = await host.recentEvents({
          ...(query.server !== undefined && { server: query.server }),
          ...(query.before !== undefined && { before: query.before }),
          limit: query.limit ?? 100,
        });
        // A caller limited to some servers sees fewer items on a page; the cursor still holds.
        const items = page.events.filter((e) => caller.principal.allows(e.server)).map(toApiEvent);
        return json({ items, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/audit',
      tag: 'audit',
      summary: 'Read the audit log, newest first',
      description: 'Every policy decision, call and server change. Only for callers that may manage servers.',
      query: auditQuery,
      responses: { 200: { description: 'A page of audit records.', schema: apiAuditPageSchema } },
      handle: async ({ query, caller }) => {
        if (!caller.canManage) {
          throw new ApiProblem(
            403,
            'FORBIDDEN',
            `"${caller.principal.id}" may not read the audit log: it is for principals that may manage servers ` +
              '(grants servers ["*"] and tools ["*"]).',
          );
        }
        const { since, until, ...rest } = query;
        const page = await host.audit({
          ...rest,
          ...(since !== undefined && { since: new Date(since) }),
          ...(until !== undefined && { until: new Date(until) }),
          limit: query.limit ?? 100,
        });
        const items: ApiAuditEntry[] = page.entries.map((e) => ({
          id: e.id,
          at: e.at.toISOString(),
          server: e.server,
          actor: e.actor,
          action: e.action,
          outcome: e.outcome,
          details: e.details ?? null,
        }));
        const body: ApiPage<ApiAuditEntry> = {
          items,
          ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
        };
        return json(body);
      },
    }),
  ];
}
