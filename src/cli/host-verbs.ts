import { lazy, type Verb } from './cli-context.js';

/** The verbs that run Switchboard for other programs: `serve`, `start`, `host --jsonl`. */
export const HOST_VERBS: Readonly<Record<string, Verb>> = {
  serve: lazy(
    {
      summary: 'serves every configured server as one MCP server (HTTP, or --stdio) with a dashboard',
      examples: ['switchboard serve', 'switchboard serve --port 0', 'switchboard serve --stdio'],
    },
    () => import('./serve-command.js'),
    (m) => ({ run: m.serveCommand, usage: m.SERVE_USAGE }),
  ),
  start: lazy(
    {
      summary: 'runs the bundled demo: gateway, dashboard and three demo servers (npm start)',
      examples: ['switchboard start', 'switchboard start --port 0 --no-open'],
    },
    () => import('./start-command.js'),
    (m) => ({ run: m.startCommand, usage: m.START_USAGE }),
  ),
  host: lazy(
    {
      summary: 'drives the host over stdin/stdout in JSON lines, for programs in other languages',
      examples: ['switchboard host --jsonl'],
    },
    () => import('./host-command.js'),
    (m) => ({ run: m.hostCommand, usage: m.HOST_USAGE }),
  ),
};
