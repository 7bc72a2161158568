import type { RawServerEntryFields } from './entry-schema.js';

/**
 * The fields of a server entry that its transport would not use. `args`, `env`, `cwd` and `sandbox`
 * belong to a local server (`command`, stdio); `headers` and `auth` to a remote one (`url`,
 * Streamable HTTP or SSE). Normalizing keeps such an entry as it is, since config files written
 * for other clients carry them; where an entry is sent to be stored (the HTTP API, the
 * management tools) it is refused instead, so that no field a caller sent does nothing
 * without a word. Pure.
 */

/** A field the entry's transport does not use, and what to do about it. */
export interface UnusedEntryField {
  /** The field's name in the entry, e.g. `env`. */
  readonly field: string;
  readonly problem: string;
}

const LOCAL_ONLY = ['args', 'env', 'cwd', 'sandbox'] as const;
const REMOTE_ONLY = ['headers', 'auth'] as const;

/** The first field of `entry` that its transport does not use, or undefined when every field counts. */
export function unusedEntryField(entry: RawServerEntryFields): UnusedEntryField | undefined {
  const kind =
    entry.transport ?? (entry.command !== undefined ? 'stdio' : entry.url !== undefined ? 'http' : undefined);
  // Without a transport the entry is refused anyway, with a message about that.
  if (kind === undefined) return undefined;
  if (kind === 'stdio') {
    const field = REMOTE_ONLY.find((f) => entry[f] !== undefined);
    return (
      field && {
        field,
        problem:
          `a local server ("command") does not use "${field}": it is sent to remote servers only. ` +
          'Give a local server its credentials through "env", or remove the field.',
      }
    );
  }
  const field = LOCAL_ONLY.find((f) => entry[f] !== undefined);
  return (
    field && {
      field,
      problem:
        `a remote server ("url") does not use "${field}": it applies to a local command only. ` +
        'Send credentials to a remote server with "headers" or "auth", or remove the field.',
    }
  );
}
