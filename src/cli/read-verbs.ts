import { lazy, type Verb } from './cli-context.js';

/** The verbs that look at servers and use them: list, status, tools, describe, call, resources, read, prompts, prompt. */
export const READ_VERBS: Readonly<Record<string, Verb>> = {
  list: lazy(
    {
      summary: 'the servers, their state and how many tools, resources and prompts each offers',
      examples: ['switchboard list', 'switchboard --json list'],
    },
    () => import('./list-command.js'),
    (m) => ({ run: m.listCommand, usage: m.LIST_USAGE }),
  ),
  status: lazy(
    {
      summary: "one server (or all) in detail: transport, config file, log file, what's refused",
      examples: ['switchboard status', 'switchboard status weather'],
    },
    () => import('./list-command.js'),
    (m) => ({ run: m.statusCommand, usage: m.STATUS_USAGE }),
  ),
  tools: lazy(
    {
      summary: 'the tools of every server, or of one, with their parameters',
      examples: ['switchboard tools', 'switchboard tools weather'],
    },
    () => import('./tools-command.js'),
    (m) => ({ run: m.toolsCommand, usage: m.TOOLS_USAGE }),
  ),
  describe: lazy(
    {
      summary: 'one tool: its description, parameters and output schema',
      examples: ['switchboard describe weather.get_forecast'],
    },
    () => import('./describe-command.js'),
    (m) => ({ run: m.describeCommand, usage: m.DESCRIBE_USAGE }),
  ),
  call: lazy(
    {
      summary: 'calls a tool with key=value arguments, under policy, and prints the result',
      examples: [
        'switchboard call weather.get_forecast city=Lisbon days=3',
        `switchboard call weather.get_forecast --args '{"city":"Oslo"}'`,
      ],
    },
    () => import('./call-command.js'),
    (m) => ({ run: m.callCommand, usage: m.CALL_USAGE }),
  ),
  resources: lazy(
    {
      summary: 'the resources and resource templates of every server, or of one',
      examples: ['switchboard resources', 'switchboard resources weather'],
    },
    () => import('./resources-command.js'),
    (m) => ({ run: m.resourcesCommand, usage: m.RESOURCES_USAGE }),
  ),
  read: lazy(
    {
      summary: 'reads a resource by its URI and prints it (binary content saved to a file)',
      examples: ['switchboard read <uri>', 'switchboard read <uri> --server weather'],
    },
    () => import('./read-command.js'),
    (m) => ({ run: m.readCommand, usage: m.READ_USAGE }),
  ),
  prompts: lazy(
    {
      summary: 'the prompts of every server, or of one, with their arguments',
      examples: ['switchboard prompts', 'switchboard prompts <server>'],
    },
    () => import('./prompts-command.js'),
    (m) => ({ run: m.promptsCommand, usage: m.PROMPTS_USAGE }),
  ),
  prompt: lazy(
    {
      summary: 'gets a prompt with key=value arguments and prints its messages',
      examples: ['switchboard prompt <server>.<prompt> key=value'],
    },
    () => import('./prompt-command.js'),
    (m) => ({ run: m.promptCommand, usage: m.PROMPT_USAGE }),
  ),
};
