import type { LinkPart, ToolResult } from '../../client/results.js';
import type { MediaRef, MediaSaver } from './media-store.js';

/**
 * A tool result as text an LLM (or a terminal) can take: text parts as they are, each media
 * part saved to the media store and referenced by URL with its type and size, each
 * `resource_link` as a markdown link. The only I/O is `store.save`.
 */
export interface RenderedResult {
  readonly text: string;
  /** The saved media, in the order of the result's media parts. */
  readonly media: readonly MediaRef[];
}

/**
 * Saves the result's media and renders the whole result as text. The text parts come
 * first, then one line per media part (`[image/png, 12.3 KiB](url)`), then one line per
 * link (`[name](uri)`). Media is saved in parallel; a failed save rejects the whole render
 * (a result that silently lost its image would mislead the reader).
 */
export async function renderResultWithMedia(result: ToolResult, store: MediaSaver): Promise<RenderedResult> {
  const media = await Promise.all(result.media.map((part) => store.save(part)));
  const lines: string[] = [];
  if (result.text !== '') lines.push(result.text);
  for (const ref of media) lines.push(mediaReference(ref));
  for (const link of result.links) lines.push(markdownLink(link));
  return { text: lines.join('\n'), media };
}

/** `[image/png, 12.3 KiB](url)`: the type is normalized by the store, so it is markdown-safe. */
export function mediaReference(ref: MediaRef): string {
  return `[${ref.mimeType}, ${formatBytes(ref.bytes)}](${ref.url})`;
}

/** `[name](uri)`, with the name and the URI escaped so a server cannot break out of the link. */
export function markdownLink(link: Pick<LinkPart, 'name' | 'uri'>): string {
  const name = link.name.trim() === '' ? link.uri : link.name;
  return `[${escapeLinkText(name)}](${escapeDestination(link.uri)})`;
}

/** Bytes in binary units with one decimal: `512 B`, `12.3 KiB`, `4.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** CommonMark §6.3 link text: brackets and backslashes escaped, line breaks folded. */
function escapeLinkText(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/**
 * CommonMark §6.3 link destination: no spaces, controls or unbalanced parentheses. These
 * characters are percent-encoded (RFC 3986 §2.1), which keeps the URI's meaning.
 */
function escapeDestination(uri: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being escaped.
  return uri.replace(/[\s()<>\\\u0000-\u001f\u007f]/g, (c) =>
    [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
