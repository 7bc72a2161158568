import { CALL_USAGE, callCommand } from './call-command.js';
import type { Verb } from './cli-context.js';
import { DESCRIBE_USAGE, describeCommand } from './describe-command.js';
import { LIST_USAGE, listCommand, STATUS_USAGE, statusCommand } from './list-command.js';
import { PROMPT_USAGE, promptCommand } from './prompt-command.js';
import { PROMPTS_USAGE, promptsCommand } from './prompts-command.js';
import { READ_USAGE, readCommand } from './read-command.js';
import { RESOURCES_USAGE, resourcesCommand } from './resources-command.js';
import { TOOLS_USAGE, toolsCommand } from './tools-command.js';

/** The verbs that look at servers and use them: list, status, tools, describe, call, resources, read, prompts, prompt. */
export const READ_VERBS: Readonly<Record<string, Verb>> = {
  list: { run: listCommand, usage: LIST_USAGE },
  status: { run: statusCommand, usage: STATUS_USAGE },
  tools: { run: toolsCommand, usage: TOOLS_USAGE },
  describe: { run: describeCommand, usage: DESCRIBE_USAGE },
  call: { run: callCommand, usage: CALL_USAGE },
  resources: { run: resourcesCommand, usage: RESOURCES_USAGE },
  read: { run: readCommand, usage: READ_USAGE },
  prompts: { run: promptsCommand, usage: PROMPTS_USAGE },
  prompt: { run: promptCommand, usage: PROMPT_USAGE },
};
