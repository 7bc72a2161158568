import type { LogEntry } from '../client/connection-types.js';

/** A host's own warning about `server`, logged beside the server's lines (`source: lifecycle`). */
export function lifecycle(server: string): Omit<LogEntry, 'text'> {
  return { server, source: 'lifecycle', level: 'warning', at: new Date() };
}
