import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';

/**
 * Tool results in one typed shape. A raw `CallToolResult` mixes text, JSON, media and links;
 * callers (the catalog, LLM adapters, the CLI) want to know which kind they hold without
 * re-parsing it. Pure: no I/O, unit-tested on its own.
 */

/** A media part, decoded to bytes (when `data` is first read: see `mediaPart`). */
export interface MediaPart {
  readonly type: 'image' | 'audio' | 'blob';
  readonly mimeType: string;
  readonly data: Uint8Array;
  /** Set for embedded resources. */
  readonly uri?: string;
}

/** A `resource_link`: kept as a reference, never fetched on its own. */
export interface LinkPart {
  readonly type: 'link';
  readonly uri: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly description?: string;
}

/** Outcome of checking `structuredContent` against a declared `outputSchema`. */
export type SchemaCheck =
  | { readonly status: 'valid' }
  | { readonly status: 'invalid'; readonly errors: string }
  | { readonly status: 'unchecked' };

interface ResultBase {
  readonly isError: boolean;
  /** Every text part (text content and embedded text resources), joined by newlines. */
  readonly text: string;
  readonly media: readonly MediaPart[];
  readonly links: readonly LinkPart[];
  /** The result as the server sent it. */
  readonly raw: CallToolResult;
}

/** The result's main payload is JSON (`structuredContent`). */
export interface JsonResult extends ResultBase {
  readonly kind: 'json';
  readonly json: unknown;
  readonly schema: SchemaCheck;
}

/** The result carries media (and maybe text). */
export interface MediaResult extends ResultBase {
  readonly kind: 'media';
}

/** Text only (possibly empty, possibly with links). */
export interface TextResult extends ResultBase {
  readonly kind: 'text';
}

export type ToolResult = JsonResult | MediaResult | TextResult;

/** Validates structured content against an output schema; returns an error text or undefined. */
export type OutputValidator = (value: unknown) => string | undefined;

function decodeBase64(data: string): Uint8Array {
  return Buffer.from(data, 'base64');
}

/**
 * A media part whose bytes are decoded from `base64` when `data` is first read, then kept.
 * Every tool call is normalized, but only the host's own callers (the CLI, agent sessions,
 * media saving) read the bytes; a gateway relaying the result as it came never does, and
 * decoding a large image for it cost a copy and a pass over its base64 per call. `data` is an
 * own enumerable property, so spreading, comparing or serializing a part sees it as before.
 */
function mediaPart(type: MediaPart['type'], mimeType: string, base64: string, uri?: string): MediaPart {
  let decoded: Uint8Array | undefined;
  const part = { type, mimeType } as { -readonly [K in keyof MediaPart]: MediaPart[K] };
  Object.defineProperty(part, 'data', {
    enumerable: true,
    get: () => {
      decoded ??= decodeBase64(base64);
      return decoded;
    },
  });
  if (uri !== undefined) part.uri = uri;
  return part;
}

function partsOf(content: readonly ContentBlock[]): {
  texts: string[];
  media: MediaPart[];
  links: LinkPart[];
} {
  const texts: string[] = [];
  const media: MediaPart[] = [];
  const links: LinkPart[] = [];
  for (const block of content) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
      case 'audio':
        media.push(mediaPart(block.type, block.mimeType, block.data));
        break;
      case 'resource': {
        const r = block.resource;
        if ('blob' in r && typeof r.blob === 'string') {
          media.push(mediaPart('blob', r.mimeType ?? 'application/octet-stream', r.blob, r.uri));
        } else if ('text' in r && typeof r.text === 'string') {
          texts.push(r.text);
        }
        break;
      }
      case 'resource_link': {
        const link: LinkPart = { type: 'link', uri: block.uri, name: block.name };
        links.push({
          ...link,
          ...(block.mimeType !== undefined && { mimeType: block.mimeType }),
          ...(block.description !== undefined && { description: block.description }),
        });
        break;
      }
      default:
        // A content type from a newer revision: keep it visible as JSON text rather than drop it.
        texts.push(JSON.stringify(block));
    }
  }
  return { texts, media, links };
}

/**
 * Normalizes a tool result. `structuredContent` wins over text when present (checked with
 * `validate` when the tool declared an `outputSchema`; a mismatch is reported, not thrown).
 */
export function normalizeToolResult(raw: CallToolResult, validate?: OutputValidator): ToolResult {
  const content = Array.isArray(raw.content) ? raw.content : [];
  const { texts, media, links } = partsOf(content);
  const base = { isError: raw.isError === true, text: texts.join('\n'), media, links, raw };
  if (raw.structuredContent !== undefined) {
    let schema: SchemaCheck = { status: 'unchecked' };
    if (validate && !base.isError) {
      const errors = validate(raw.structuredContent);
      schema = errors === undefined ? { status: 'valid' } : { status: 'invalid', errors };
    }
    return { ...base, kind: 'json', json: raw.structuredContent, schema };
  }
  if (media.length > 0) return { ...base, kind: 'media' };
  return { ...base, kind: 'text' };
}
