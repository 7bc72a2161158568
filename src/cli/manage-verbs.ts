import { lazy, type Verb } from './cli-context.js';

/** The verbs that change or inspect the setup: add, remove, enable, disable, reload, import, logs, events, inbox, doctor. */
export const MANAGE_VERBS: Readonly<Record<string, Verb>> = {
  add: lazy(
    () => import('./add-command.js'),
    (m) => ({ run: m.addCommand, usage: m.ADD_USAGE }),
  ),
  remove: lazy(
    () => import('./remove-command.js'),
    (m) => ({ run: m.removeCommand, usage: m.REMOVE_USAGE }),
  ),
  enable: lazy(
    () => import('./toggle-command.js'),
    (m) => ({ run: m.enableCommand, usage: m.ENABLE_USAGE }),
  ),
  disable: lazy(
    () => import('./toggle-command.js'),
    (m) => ({ run: m.disableCommand, usage: m.DISABLE_USAGE }),
  ),
  reload: lazy(
    () => import('./reload-command.js'),
    (m) => ({ run: m.reloadCommand, usage: m.RELOAD_USAGE }),
  ),
  import: lazy(
    () => import('./import-command.js'),
    (m) => ({ run: m.importCommand, usage: m.IMPORT_USAGE }),
  ),
  logs: lazy(
    () => import('./logs-command.js'),
    (m) => ({ run: m.logsCommand, usage: m.LOGS_USAGE }),
  ),
  events: lazy(
    () => import('./events-command.js'),
    (m) => ({ run: m.eventsCommand, usage: m.EVENTS_USAGE }),
  ),
  inbox: lazy(
    () => import('./inbox-command.js'),
    (m) => ({ run: m.inboxCommand, usage: m.INBOX_USAGE }),
  ),
  doctor: lazy(
    () => import('./doctor-command.js'),
    (m) => ({ run: m.doctorCommand, usage: m.DOCTOR_USAGE }),
  ),
};
