import { MEDIA_EXTENSIONS } from './mime.js';

/**
 * Names of saved media files: `<id>.<ext>`, where `id` is 16 random bytes in base64url (22
 * characters, RFC 4648 §5) and `ext` one of the extensions the store writes. Pure.
 *
 * A name arrives from a URL, so it is checked against one strict pattern rather than
 * cleaned up: no slashes, no `..`, no second dot, no percent sign (the caller decodes the
 * URL once; anything still encoded after that is refused, not decoded again).
 */

/** The id part: exactly what `randomBytes(16).toString('base64url')` produces. */
export const MEDIA_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

const NAME_PATTERN = /^([A-Za-z0-9_-]{22})\.([a-z0-9]{1,8})$/;

/** Longer than any name the store writes; checked first so huge inputs cost nothing. */
const MAX_NAME_LENGTH = 40;

/** A name that passed the check, split into its parts. */
export interface MediaName {
  readonly id: string;
  readonly extension: string;
  readonly fileName: string;
}

export type MediaNameCheck =
  | { readonly ok: true; readonly name: MediaName }
  | { readonly ok: false; readonly reason: string };

/** Checks a requested file name; the reason says why it was refused. */
export function parseMediaName(name: string): MediaNameCheck {
  if (name.length === 0) return { ok: false, reason: 'the name is empty' };
  if (name.length > MAX_NAME_LENGTH) return { ok: false, reason: 'the name is too long' };
  const match = NAME_PATTERN.exec(name);
  if (!match) return { ok: false, reason: 'the name is not of the form <id>.<ext>' };
  const [, id, extension] = match;
  if (id === undefined || extension === undefined || !MEDIA_EXTENSIONS.has(extension)) {
    return { ok: false, reason: `".${extension ?? ''}" is not an extension the media store writes` };
  }
  return { ok: true, name: { id, extension, fileName: name } };
}
