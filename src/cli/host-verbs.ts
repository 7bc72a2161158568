import type { Verb } from './cli-context.js';

/** The verbs that run Switchboard for other programs: `host --jsonl`, `start`. */
export const HOST_VERBS: Readonly<Record<string, Verb>> = {};
