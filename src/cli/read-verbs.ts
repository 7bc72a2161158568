import { lazy, type Verb } from './cli-context.js';

/** The verbs that look at servers and use them: list, status, tools, describe, call, resources, read, prompts, prompt. */
export const READ_VERBS: Readonly<Record<string, Verb>> = {
  list: lazy(
    () => import('./list-command.js'),
    (m) => ({ run: m.listCommand, usage: m.LIST_USAGE }),
  ),
  status: lazy(
    () => import('./list-command.js'),
    (m) => ({ run: m.statusCommand, usage: m.STATUS_USAGE }),
  ),
  tools: lazy(
    () => import('./tools-command.js'),
    (m) => ({ run: m.toolsCommand, usage: m.TOOLS_USAGE }),
  ),
  describe: lazy(
    () => import('./describe-command.js'),
    (m) => ({ run: m.describeCommand, usage: m.DESCRIBE_USAGE }),
  ),
  call: lazy(
    () => import('./call-command.js'),
    (m) => ({ run: m.callCommand, usage: m.CALL_USAGE }),
  ),
  resources: lazy(
    () => import('./resources-command.js'),
    (m) => ({ run: m.resourcesCommand, usage: m.RESOURCES_USAGE }),
  ),
  read: lazy(
    () => import('./read-command.js'),
    (m) => ({ run: m.readCommand, usage: m.READ_USAGE }),
  ),
  prompts: lazy(
    () => import('./prompts-command.js'),
    (m) => ({ run: m.promptsCommand, usage: m.PROMPTS_USAGE }),
  ),
  prompt: lazy(
    () => import('./prompt-command.js'),
    (m) => ({ run: m.promptCommand, usage: m.PROMPT_USAGE }),
  ),
};
