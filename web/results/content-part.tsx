import type { ApiContent } from '../../src/gateway/api/api-types.js';
import { useMediaSource } from './use-media-source.js';

type MediaContent = Extract<ApiContent, { readonly url: string }>;

/** One content part of a result or resource: text, saved media, or a link to a resource. */
export function ContentPart(props: { readonly part: ApiContent }) {
  const { part } = props;
  switch (part.type) {
    case 'text':
      return (
        <div class="content-part">
          {part.uri && <p class="content-uri">{part.uri}</p>}
          <pre class="result-text" data-testid="result-text">
            {part.text}
          </pre>
        </div>
      );
    case 'resource_link':
      return (
        <p class="content-part" data-testid="result-link">
          {isWebLink(part.uri) ? (
            <a href={part.uri} target="_blank" rel="noopener noreferrer">
              {part.name}
            </a>
          ) : (
            <>
              {part.name} <code>{part.uri}</code>
            </>
          )}
          {part.description && <span class="muted"> — {part.description}</span>}
        </p>
      );
    default:
      return <MediaPart part={part} />;
  }
}

function MediaPart(props: { readonly part: MediaContent }) {
  const { part } = props;
  const { src, error } = useMediaSource(part.url);
  const what = `${part.mimeType}, ${formatBytes(part.bytes)}`;
  if (error)
    return (
      <p class="field-error">
        Could not load the {part.type} ({what}): {error}
      </p>
    );
  if (!src) return <p class="muted">Loading the {part.type}…</p>;
  return (
    <figure class="content-part">
      {part.type === 'image' && (
        <img
          src={src}
          alt={part.uri ? `${part.uri} (${what})` : `Image (${what})`}
          data-testid="result-image"
        />
      )}
      {part.type === 'audio' && (
        // biome-ignore lint/a11y/useMediaCaption: tool results come without captions to offer.
        <audio controls src={src} data-testid="result-audio" />
      )}
      {part.type === 'blob' && (
        <a href={src} download={part.url.split('/').pop()} data-testid="result-blob">
          Download the file
        </a>
      )}
      <figcaption class="muted">{what}</figcaption>
    </figure>
  );
}

function isWebLink(uri: string): boolean {
  try {
    const { protocol } = new URL(uri);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Bytes for people: 812 B, 14.2 KB, 3.1 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
