import { z } from 'zod';
import type { LogEntry } from '../../../client/connection-types.js';
import { apiLogTailSchema } from '../api-schemas.js';
import { joinTail, logFileLine, tailLog, toApiLogLine } from '../log-view.js';
import { type ApiDeps, type ApiRoute, defineRoute, json } from '../route.js';
import { serverFor } from '../server-view.js';
import { openSse } from '../sse.js';

/**
 * `/api/logs/{server}`: the last lines of a server's log file, and (`/follow`) the same lines
 * followed by every new one as an SSE stream of `log` events.
 */

const DEFAULT_LINES = 200;
const MAX_LINES = 2000;

const linesQuery = z.strictObject({
  lines: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_LINES)
    .optional()
    .describe(`How many of the last lines (default ${DEFAULT_LINES}, at most ${MAX_LINES}).`),
});

const SERVER = { server: 'The server name.' };

/** The routes of `/api/logs`. */
export function logRoutes({ host, track }: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/logs/{server}',
      tag: 'logs',
      summary: "The last lines of a server's log",
      params: SERVER,
      query: linesQuery,
      responses: { 200: { description: 'The lines, oldest first.', schema: apiLogTailSchema } },
      handle: async ({ params, query, caller }) => {
        const server = serverFor(host, caller.principal, params.server!).name;
        const file = host.logFile(server);
        const lines = await tailLog(file, query.lines ?? DEFAULT_LINES);
        return json({ server, file, lines: lines.map(toApiLogLine) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/logs/{server}/follow',
      tag: 'logs',
      summary: "Follow a server's log",
      description:
        'SSE: one `log` event (an ApiLogLine as data) per line, first the last `lines` lines, then each new one.',
      params: SERVER,
      query: linesQuery,
      responses: { 200: { description: '`log` events, until the client closes the stream.', sse: true } },
      handle: async ({ ctx, params, query, caller }) => {
        const server = serverFor(host, caller.principal, params.server!).name;
        const stream = openSse({ signal: ctx.signal });
        track(stream);
        const send = (line: string) => stream.send('log', toApiLogLine(line));
        // Listening starts before the file is read, so no line falls between the tail and
        // the stream; lines heard meanwhile wait until the tail is out (joinTail drops repeats).
        let early: string[] | undefined = [];
        const onLog = (entry: LogEntry) => {
          if (entry.server !== server) return;
          const line = logFileLine(entry, host.serverConfig(server));
          if (early) early.push(line);
          else send(line);
        };
        host.on('log', onLog);
        stream.onClose(() => host.off('log', onLog));
        try {
          const tail = await tailLog(host.logFile(server), query.lines ?? DEFAULT_LINES);
          for (const line of joinTail(tail, early)) send(line);
        } catch (error) {
          stream.close();
          throw error;
        }
        early = undefined;
        return stream.response;
      },
    }),
  ];
}
