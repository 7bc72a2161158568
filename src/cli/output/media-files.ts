import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MediaPart } from '../../client/results.js';
import { MediaStore } from '../../host/media/media-store.js';
import { formatBytes } from '../../host/media/media-text.js';

/**
 * Where the CLI puts images, audio and binary blobs from tool results and resources: files in
 * the data dir's `media/` (the host's media store: private files, an unguessable name, pruned
 * after 7 days), printed as a line with the type, the size and the path, never as bytes on a
 * terminal.
 */
export interface SavedMedia {
  readonly type: MediaPart['type'];
  readonly mimeType: string;
  readonly bytes: number;
  /** Absolute path of the file. */
  readonly path: string;
  /** The resource URI, for an embedded resource or a blob read from one. */
  readonly uri?: string;
}

/** Saves each part to its own file, in order. */
export async function saveMedia(
  dataDir: string,
  parts: readonly Pick<MediaPart, 'type' | 'mimeType' | 'data' | 'uri'>[],
): Promise<SavedMedia[]> {
  if (parts.length === 0) return [];
  const dir = join(dataDir, 'media');
  const store = new MediaStore({ dir, baseUrl: pathToFileURL(dir).href });
  return Promise.all(
    parts.map(async (part) => {
      const ref = await store.save(part);
      return {
        type: part.type,
        mimeType: ref.mimeType,
        bytes: ref.bytes,
        path: join(dir, ref.fileName),
        ...(part.uri !== undefined && { uri: part.uri }),
      };
    }),
  );
}

/** `[image/png, 67 B] saved to /home/me/.switchboard/media/Xy….png` */
export function describeMedia(media: Pick<SavedMedia, 'mimeType' | 'bytes' | 'path'>): string {
  return `[${media.mimeType}, ${formatBytes(media.bytes)}] saved to ${media.path}`;
}
