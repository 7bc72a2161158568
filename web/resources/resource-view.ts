import type { ApiContent } from '../../src/gateway/api/api-types.js';

/**
 * How a part of a resource's contents is shown: JSON text pretty-printed, binary contents that
 * are images or audio inline (the API saves every binary resource as a `blob`, whatever it
 * holds), everything else as the result renderers show it. Pure.
 */
export type ResourcePartView =
  | { readonly kind: 'json'; readonly uri?: string; readonly mimeType: string; readonly text: string }
  | { readonly kind: 'part'; readonly part: ApiContent };

/** A media type taken apart: `application/ld+json; charset=utf-8` → application, ld+json. */
interface MediaType {
  readonly type: string;
  readonly subtype: string;
}

/** `type/subtype` of a MIME type (RFC 2045 §5.1), lower-cased, parameters dropped; undefined if malformed. */
export function parseMediaType(mimeType: string | undefined): MediaType | undefined {
  const essence = mimeType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  const [type, subtype, ...more] = essence.split('/');
  if (!type || !subtype || more.length > 0) return undefined;
  return { type, subtype };
}

/** Whether a MIME type is JSON: `application/json`, or any `+json` structured suffix (RFC 6839 §3.1). */
export function isJsonMediaType(mimeType: string | undefined): boolean {
  const media = parseMediaType(mimeType);
  if (!media) return false;
  // `json` itself, or the last `+` part of a suffixed subtype (`ld+json`, `vnd.api+json`).
  return media.subtype.split('+').at(-1) === 'json';
}

/** How to show `part`, one of a resource's contents. */
export function resourcePartView(part: ApiContent): ResourcePartView {
  if (part.type === 'text' && isJsonMediaType(part.mimeType)) {
    const pretty = prettyJson(part.text);
    if (pretty !== undefined)
      return {
        kind: 'json',
        mimeType: part.mimeType!,
        text: pretty,
        ...(part.uri !== undefined && { uri: part.uri }),
      };
  }
  if (part.type === 'blob') {
    const media = parseMediaType(part.mimeType);
    if (media?.type === 'image' || media?.type === 'audio')
      return { kind: 'part', part: { ...part, type: media.type } };
  }
  return { kind: 'part', part };
}

/** `text` indented, when it is JSON; a server that says JSON and sends something else is shown as sent. */
function prettyJson(text: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return undefined;
  }
}
