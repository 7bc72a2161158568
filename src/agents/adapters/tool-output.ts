import type { ToolResult } from '../../client/results.js';
import type { MediaRef } from '../../host/media/media-store.js';
import { formatBytes, markdownLink, mediaReference } from '../../host/media/media-text.js';
import { normalizeMimeType } from '../../host/media/mime.js';

/**
 * A tool result in the form every provider adapter starts from: the main text, the media
 * (each with the line that stands for it where it cannot be shown) and the links. Built once
 * per result, then turned into an OpenAI tool message, a Responses output, an Anthropic
 * `tool_result` or an AI SDK output. Pure: no I/O.
 */
export interface AgentToolOutput {
  readonly isError: boolean;
  /** The result's text parts, or for a JSON result its value printed compactly. */
  readonly body: string;
  readonly media: readonly OutputMedia[];
  /** `resource_link`s as markdown links, `[name](uri)`. */
  readonly links: readonly string[];
}

/** One media part of a result. */
export interface OutputMedia {
  /** Normalized: lower case, parameters dropped, aliases resolved (`image/jpg` → `image/jpeg`). */
  readonly mimeType: string;
  readonly data: Uint8Array;
  /** The line shown instead of the media: `[image/png, 12.3 KiB](url)`. */
  readonly reference: string;
}

export interface ToolOutputOptions {
  /**
   * The result as the host rendered it (`host.renderResult(result)`): its saved media give
   * each reference its URL. Without it, media a provider cannot show are described by type
   * and size only.
   */
  readonly rendered?: { readonly media: readonly MediaRef[] };
}

/**
 * The image types both OpenAI and Anthropic accept in tool results; other media (SVG, AVIF,
 * audio, PDFs, blobs) are sent as their reference line.
 */
export type InlineImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set<InlineImageType>([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

function isInlineImageType(mimeType: string): mimeType is InlineImageType {
  return INLINE_IMAGE_TYPES.has(mimeType);
}

/** One piece of output content for providers that take images. */
export type OutputPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: InlineImageType; readonly base64: string };

/** Which media a provider shows inline. */
export interface InlineImagePolicy {
  /** Largest base64-encoded image inlined; larger ones become their reference line. */
  readonly maxImageBytes: number;
}

/** Anthropic's per-image limit, counted on the base64 data; the stricter of the two APIs. */
export const DEFAULT_MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** What a model reads for a failed tool call where the provider has no error flag. */
export const ERROR_PREFIX = 'Tool error: ';
/** What a model reads for a result with no content at all (some APIs refuse empty text). */
export const EMPTY_RESULT_TEXT = '(empty result)';

/**
 * Builds the adapter form of a tool result. For a JSON result the body is the JSON printed
 * compactly, unless the server sent a text rendering of its own that is not just the JSON
 * again (then that text, which the server wrote for readers, is the body).
 */
export function toAgentToolOutput(result: ToolResult, options: ToolOutputOptions = {}): AgentToolOutput {
  const saved = options.rendered?.media ?? [];
  const media = result.media.map((part, index): OutputMedia => {
    const ref = saved[index];
    const mimeType = normalizeMimeType(part.mimeType);
    const label = `${mimeType}, ${formatBytes(part.data.byteLength)}`;
    const reference =
      ref !== undefined
        ? mediaReference(ref)
        : part.uri !== undefined
          ? markdownLink({ name: label, uri: part.uri })
          : `[${label}, not shown]`;
    return { mimeType, data: part.data, reference };
  });
  return {
    isError: result.isError,
    body: bodyOf(result),
    media,
    links: result.links.map((link) => markdownLink(link)),
  };
}

/** An error output with `message` as its text: for calls refused before they reach a server. */
export function errorOutput(message: string): AgentToolOutput {
  return { isError: true, body: message, media: [], links: [] };
}

/**
 * The whole output as text: body, then one line per media part and per link. Errors are
 * prefixed with `Tool error: ` when `markError` is set (for APIs without an error flag).
 */
export function outputText(output: AgentToolOutput, options: { readonly markError: boolean }): string {
  // With no image allowed inline, the parts are one text part.
  const parts = outputParts(output, { maxImageBytes: -1, markError: options.markError });
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * The output as text and image parts, in order: body, media (images the provider accepts
 * inline, the reference line for the rest), links. Adjacent lines share one text part; an
 * output with no content at all is one `(empty result)` text part.
 */
export function outputParts(
  output: AgentToolOutput,
  options: InlineImagePolicy & { readonly markError: boolean },
): OutputPart[] {
  const items: (string | OutputPart)[] = [output.body];
  for (const media of output.media) {
    const { mimeType } = media;
    items.push(
      canInline(media, options) && isInlineImageType(mimeType)
        ? { type: 'image', mimeType, base64: toBase64(media.data) }
        : media.reference,
    );
  }
  items.push(...output.links);
  const content = items.filter((item) => item !== '');
  if (content.length === 0) content.push(EMPTY_RESULT_TEXT);
  if (options.markError && output.isError) {
    const first = content[0];
    if (typeof first === 'string') content[0] = `${ERROR_PREFIX}${first}`;
    else content.unshift(ERROR_PREFIX.trimEnd());
  }
  const parts: OutputPart[] = [];
  let lines: string[] = [];
  for (const item of content) {
    if (typeof item === 'string') {
      lines.push(item);
      continue;
    }
    if (lines.length > 0) parts.push({ type: 'text', text: lines.join('\n') });
    lines = [];
    parts.push(item);
  }
  if (lines.length > 0) parts.push({ type: 'text', text: lines.join('\n') });
  return parts;
}

/** True when some media part would be inlined under `policy`. */
export function hasInlineImages(output: AgentToolOutput, policy: InlineImagePolicy): boolean {
  return output.media.some((m) => canInline(m, policy));
}

function canInline(media: OutputMedia, policy: InlineImagePolicy): boolean {
  return isInlineImageType(media.mimeType) && base64Length(media.data.byteLength) <= policy.maxImageBytes;
}

function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

function base64Length(bytes: number): number {
  return Math.ceil(bytes / 3) * 4;
}

function bodyOf(result: ToolResult): string {
  if (result.kind !== 'json') return result.text;
  const json = JSON.stringify(result.json) ?? '';
  if (result.text === '' || isJson(result.text)) return json;
  return result.text;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
