import type { MediaOpenResult } from './media-store.js';
import { isActiveContent } from './mime.js';

/**
 * Serves saved media: `GET /media/<id>.<ext>` as a web-standard handler
 * `(Request) => Promise<Response>`, so any server (node:http adapter, Hono, the gateway) can
 * mount it and tests call it in-process.
 *
 * The name in the URL is decoded exactly once and then checked by the store against the
 * strict `<id>.<ext>` pattern; a second layer of encoding stays encoded and is refused.
 * Responses never let the browser guess a type (`nosniff`, RFC 9110 §8.3), and types that
 * can run script (SVG, HTML, XML) are sent as attachments under a sandboxing CSP, so a tool
 * cannot plant a page on the host's origin. Disk failures are thrown (`STORAGE_FAILED`) for
 * the server's one error-to-response mapping.
 */
export interface MediaHandlerOptions {
  readonly store: { open(name: string): Promise<MediaOpenResult> };
  /** Path the files are served under. Default `/media`. */
  readonly prefix?: string;
}

export type MediaHandler = (request: Request) => Promise<Response>;

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  // Even an inline file is a document of its own: no script, no subresources.
  'content-security-policy': "default-src 'none'; sandbox",
} as const;

/** Builds the handler; requests outside the prefix get a 404. */
export function createMediaHandler(options: MediaHandlerOptions): MediaHandler {
  const prefix = `${(options.prefix ?? '/media').replace(/\/+$/, '')}/`;
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith(prefix)) return plain(404, 'Not found.');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return plain(405, 'Media is read-only: use GET.', { allow: 'GET, HEAD' });
    }
    let name: string;
    try {
      name = decodeURIComponent(pathname.slice(prefix.length));
    } catch {
      return plain(400, 'The media name is not valid percent-encoding.');
    }
    const opened = await options.store.open(name);
    switch (opened.status) {
      case 'refused':
        return plain(400, `Refused media name: ${opened.reason}.`);
      case 'not_found':
        return plain(404, 'No such media: it may have expired. Call the tool again.');
      case 'found': {
        const { file } = opened;
        const disposition = isActiveContent(file.mimeType) ? 'attachment' : 'inline';
        const headers = {
          ...COMMON_HEADERS,
          'content-type': file.mimeType,
          'content-length': String(file.bytes),
          // The name is `<id>.<ext>` from a strict pattern: nothing to quote or escape.
          'content-disposition': `${disposition}; filename="${file.fileName}"`,
          // A URL names one file forever (ids are never reused); private: it is a capability.
          'cache-control': 'private, max-age=604800, immutable',
          'last-modified': file.modifiedAt.toUTCString(),
        };
        if (request.method === 'HEAD') {
          await file.stream.cancel();
          return new Response(null, { status: 200, headers });
        }
        return new Response(file.stream, { status: 200, headers });
      }
    }
  };
}

function plain(status: number, text: string, extra: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status,
    headers: { ...COMMON_HEADERS, 'content-type': 'text/plain; charset=utf-8', ...extra },
  });
}
