import { lazy, type Verb } from './cli-context.js';

/** The verbs that record a server's traffic and serve it back: record, replay. */
export const REPLAY_VERBS: Readonly<Record<string, Verb>> = {
  record: lazy(
    () => import('./record-command.js'),
    (m) => ({ run: m.recordCommand, usage: m.RECORD_USAGE }),
  ),
  replay: lazy(
    () => import('./replay-command.js'),
    (m) => ({ run: m.replayCommand, usage: m.REPLAY_USAGE }),
  ),
};
