import type { Verb } from './cli-context.js';

/** The verbs that look at servers and use them: list, status, tools, describe, call, resources, read, prompts, prompt. */
export const READ_VERBS: Readonly<Record<string, Verb>> = {};
