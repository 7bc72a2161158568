import { lazy, type Verb } from './cli-context.js';

/** The verbs that change or inspect the setup: add, remove, enable, disable, reload, import, auth, logs, events, inbox, doctor. */
export const MANAGE_VERBS: Readonly<Record<string, Verb>> = {
  add: lazy(
    {
      summary: 'adds a server to switchboard.json (a command to spawn, or a URL)',
      examples: [
        'switchboard add memory -- npx -y @modelcontextprotocol/server-memory',
        'switchboard add docs https://example.com/mcp',
      ],
    },
    () => import('./add-command.js'),
    (m) => ({ run: m.addCommand, usage: m.ADD_USAGE }),
  ),
  remove: lazy(
    {
      summary: 'removes a server from its config file or the store',
      examples: ['switchboard remove memory'],
    },
    () => import('./remove-command.js'),
    (m) => ({ run: m.removeCommand, usage: m.REMOVE_USAGE }),
  ),
  enable: lazy(
    { summary: 'turns a disabled server back on', examples: ['switchboard enable memory'] },
    () => import('./toggle-command.js'),
    (m) => ({ run: m.enableCommand, usage: m.ENABLE_USAGE }),
  ),
  disable: lazy(
    { summary: 'turns a server off without removing its entry', examples: ['switchboard disable memory'] },
    () => import('./toggle-command.js'),
    (m) => ({ run: m.disableCommand, usage: m.DISABLE_USAGE }),
  ),
  reload: lazy(
    {
      summary: 'checks the config and reconnects the servers whose entries changed',
      examples: ['switchboard reload', 'switchboard reload weather'],
    },
    () => import('./reload-command.js'),
    (m) => ({ run: m.reloadCommand, usage: m.RELOAD_USAGE }),
  ),
  import: lazy(
    {
      summary: "copies the servers of another MCP client's config (Claude Desktop, Cursor, …)",
      examples: ['switchboard import claude-desktop --dry-run', 'switchboard import cursor'],
    },
    () => import('./import-command.js'),
    (m) => ({ run: m.importCommand, usage: m.IMPORT_USAGE }),
  ),
  auth: lazy(
    {
      summary: 'logs in to a server that needs OAuth (opens the browser), or logs out',
      examples: ['switchboard auth github', 'switchboard auth github --logout'],
    },
    () => import('./auth-command.js'),
    (m) => ({ run: m.authCommand, usage: m.AUTH_USAGE }),
  ),
  logs: lazy(
    {
      summary: "a server's log (its stderr and Switchboard's notes about it)",
      examples: ['switchboard logs weather', 'switchboard logs weather -f'],
    },
    () => import('./logs-command.js'),
    (m) => ({ run: m.logsCommand, usage: m.LOGS_USAGE }),
  ),
  events: lazy(
    {
      summary: 'the notifications servers sent (list changes, logging, progress)',
      examples: ['switchboard events --limit 20', 'switchboard events --follow'],
    },
    () => import('./events-command.js'),
    (m) => ({ run: m.eventsCommand, usage: m.EVENTS_USAGE }),
  ),
  inbox: lazy(
    {
      summary: 'answers the approvals and questions waiting in a running gateway',
      examples: ['switchboard inbox', 'switchboard --data-dir .switchboard inbox'],
    },
    () => import('./inbox-command.js'),
    (m) => ({ run: m.inboxCommand, usage: m.INBOX_USAGE }),
  ),
  doctor: lazy(
    {
      summary: 'diagnoses one server step by step: entry, spawn or reach, handshake, lists',
      examples: ['switchboard doctor weather'],
    },
    () => import('./doctor-command.js'),
    (m) => ({ run: m.doctorCommand, usage: m.DOCTOR_USAGE }),
  ),
};
