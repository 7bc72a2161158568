import { lazy, type Verb } from './cli-context.js';

/** The verbs that run Switchboard for other programs: `host --jsonl`, `start`. */
export const HOST_VERBS: Readonly<Record<string, Verb>> = {
  host: lazy(
    () => import('./host-command.js'),
    (m) => ({ run: m.hostCommand, usage: m.HOST_USAGE }),
  ),
  start: lazy(
    () => import('./start-command.js'),
    (m) => ({ run: m.startCommand, usage: m.START_USAGE }),
  ),
};
