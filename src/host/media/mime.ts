/**
 * MIME type ↔ file extension for media saved from tool results. Pure: no I/O.
 *
 * The extension is the only place a saved file's type is kept, so the mapping must be a
 * round trip for the types we know: `extensionOf(t)` then `mimeTypeOf(ext)` gives back `t`
 * (or its canonical alias, e.g. `audio/x-wav` → `wav` → `audio/wav`). Unknown types become
 * `bin` and are served as `application/octet-stream`: never guessed from the bytes.
 */

/** Canonical type → extension. The first type listed for an extension is the one served. */
const EXTENSION_BY_TYPE: ReadonlyMap<string, string> = new Map([
  ['image/png', 'png'],
  ['image/jpeg', 'jpg'],
  ['image/gif', 'gif'],
  ['image/webp', 'webp'],
  ['image/avif', 'avif'],
  ['image/bmp', 'bmp'],
  ['image/svg+xml', 'svg'],
  ['audio/wav', 'wav'],
  ['audio/mpeg', 'mp3'],
  ['audio/ogg', 'ogg'],
  ['audio/flac', 'flac'],
  ['audio/aac', 'aac'],
  ['audio/mp4', 'm4a'],
  ['video/webm', 'webm'],
  ['video/mp4', 'mp4'],
  ['application/pdf', 'pdf'],
  ['application/json', 'json'],
  ['text/plain', 'txt'],
  ['text/csv', 'csv'],
  ['text/markdown', 'md'],
  ['text/html', 'html'],
  ['application/octet-stream', 'bin'],
]);

/** Non-canonical spellings seen in the wild, mapped to the canonical type. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['image/jpg', 'image/jpeg'],
  ['image/pjpeg', 'image/jpeg'],
  ['audio/x-wav', 'audio/wav'],
  ['audio/wave', 'audio/wav'],
  ['audio/vnd.wave', 'audio/wav'],
  ['audio/mp3', 'audio/mpeg'],
  ['audio/x-flac', 'audio/flac'],
  ['audio/webm', 'video/webm'],
  ['audio/x-m4a', 'audio/mp4'],
]);

const TYPE_BY_EXTENSION: ReadonlyMap<string, string> = new Map(
  [...EXTENSION_BY_TYPE].map(([type, ext]) => [ext, type]),
);

/**
 * Types a browser would run script in when navigated to. They are served as attachments so a
 * tool cannot plant a page on the host's origin.
 */
const ACTIVE_TYPES: ReadonlySet<string> = new Set([
  'image/svg+xml',
  'text/html',
  'application/xhtml+xml',
  'text/xml',
  'application/xml',
]);

/** RFC 6838 §4.2 restricted names; anything else is not a MIME type we repeat or trust. */
const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** Extensions the store writes: what `extensionOf` can return. */
export const MEDIA_EXTENSIONS: ReadonlySet<string> = new Set(TYPE_BY_EXTENSION.keys());

export const FALLBACK_MIME_TYPE = 'application/octet-stream';

/**
 * The essence of a MIME type (RFC 9110 §8.3.1): lowercased, parameters dropped, aliases
 * resolved. Returns `application/octet-stream` for anything that is not `type/subtype`, so
 * the result is always safe to put in a header or in markdown.
 */
export function normalizeMimeType(mimeType: string): string {
  const essence = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
  if (!MIME_PATTERN.test(essence)) return FALLBACK_MIME_TYPE;
  return ALIASES.get(essence) ?? essence;
}

/** The file extension (no dot) for a MIME type; `bin` when the type is unknown. */
export function extensionOf(mimeType: string): string {
  return EXTENSION_BY_TYPE.get(normalizeMimeType(mimeType)) ?? 'bin';
}

/** The MIME type a file with this extension is served as; octet-stream when unknown. */
export function mimeTypeOf(extension: string): string {
  return TYPE_BY_EXTENSION.get(extension.toLowerCase()) ?? FALLBACK_MIME_TYPE;
}

/** True for types that must be downloaded, not displayed (they can run script). */
export function isActiveContent(mimeType: string): boolean {
  return ACTIVE_TYPES.has(normalizeMimeType(mimeType));
}
