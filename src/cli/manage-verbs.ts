import type { Verb } from './cli-context.js';

/** The verbs that change or inspect the setup: add, remove, enable, disable, reload, import, logs, events, inbox, doctor. */
export const MANAGE_VERBS: Readonly<Record<string, Verb>> = {};
