import type { Verb } from './cli-context.js';
import { HOST_USAGE, hostCommand } from './host-command.js';
import { START_USAGE, startCommand } from './start-command.js';

/** The verbs that run Switchboard for other programs: `host --jsonl`, `start`. */
export const HOST_VERBS: Readonly<Record<string, Verb>> = {
  host: { run: hostCommand, usage: HOST_USAGE },
  start: { run: startCommand, usage: START_USAGE },
};
