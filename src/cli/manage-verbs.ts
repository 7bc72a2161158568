import { ADD_USAGE, addCommand } from './add-command.js';
import type { Verb } from './cli-context.js';
import { DOCTOR_USAGE, doctorCommand } from './doctor-command.js';
import { EVENTS_USAGE, eventsCommand } from './events-command.js';
import { IMPORT_USAGE, importCommand } from './import-command.js';
import { INBOX_USAGE, inboxCommand } from './inbox-command.js';
import { LOGS_USAGE, logsCommand } from './logs-command.js';
import { RELOAD_USAGE, reloadCommand } from './reload-command.js';
import { REMOVE_USAGE, removeCommand } from './remove-command.js';
import { DISABLE_USAGE, disableCommand, ENABLE_USAGE, enableCommand } from './toggle-command.js';

/** The verbs that change or inspect the setup: add, remove, enable, disable, reload, import, logs, events, inbox, doctor. */
export const MANAGE_VERBS: Readonly<Record<string, Verb>> = {
  add: { run: addCommand, usage: ADD_USAGE },
  remove: { run: removeCommand, usage: REMOVE_USAGE },
  enable: { run: enableCommand, usage: ENABLE_USAGE },
  disable: { run: disableCommand, usage: DISABLE_USAGE },
  reload: { run: reloadCommand, usage: RELOAD_USAGE },
  import: { run: importCommand, usage: IMPORT_USAGE },
  logs: { run: logsCommand, usage: LOGS_USAGE },
  events: { run: eventsCommand, usage: EVENTS_USAGE },
  inbox: { run: inboxCommand, usage: INBOX_USAGE },
  doctor: { run: doctorCommand, usage: DOCTOR_USAGE },
};
