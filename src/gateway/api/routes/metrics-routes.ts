import { z } from 'zod';
import { apiCallStatsSchema } from '../api-schemas.js';
import type { ApiCallStats } from '../api-types.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { visibleServers } from '../server-view.js';

/**
 * `/api/metrics/calls`: recent tool calls per server — the dashboard's charts. Read from the
 * host's in-process rolling window (host/stats/call-window.ts), so it answers whether or not
 * an OpenTelemetry SDK is loaded; a caller sees only the servers it may see.
 */
const query = z.strictObject({
  server: z.string().optional().describe('Only this server.'),
});

export function metricsRoutes({ host }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/metrics/calls',
      tag: 'metrics',
      summary: 'Recent tool calls per server',
      description:
        'Per server, the last minutes in slots (calls, errors, refusals, p50/p99 latency) and totals over the last minute.',
      query,
      responses: {
        200: { description: 'The servers the caller may see that had calls.', schema: apiCallStatsSchema },
      },
      handle: async ({ query, caller }) => {
        const names = new Set(
          visibleServers(host, caller.principal)
            .map((s) => s.name)
            .filter((name) => query.server === undefined || name === query.server),
        );
        const body: ApiCallStats = { now: Date.now(), ...host.governor.calls.snapshot(names) };
        return json(body);
      },
    }),
  ];
}
