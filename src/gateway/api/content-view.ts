import type { ContentBlock } from '@modelcontextprotocol/client';
import { normalizeToolResult } from '../../client/results.js';
import type { Host } from '../../host/host.js';
import type { MediaRef } from '../../host/media/media-store.js';
import type { ApiContent } from './api-types.js';

/**
 * MCP content as the dashboard shows it: text as text, links as links, and every image, audio
 * clip and binary resource saved through the host's media store and referenced by a path-only
 * URL (`/media/<file>`), which works on whatever host and port the browser used. Exactly one
 * `ApiContent` per block, in order.
 */
export async function apiContents(host: Host, blocks: readonly ContentBlock[]): Promise<ApiContent[]> {
  // The host saves a result's media parts, in the order results.ts finds them; the walk below
  // finds them in the same order and takes the saved files one by one.
  const { media } = await host.renderResult(normalizeToolResult({ content: [...blocks] }));
  let next = 0;
  const saved = (): MediaRef => {
    const ref = media[next++];
    if (!ref) throw new Error('A media part of the result was not saved.');
    return ref;
  };
  return blocks.map((block): ApiContent => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'image':
      case 'audio':
        return mediaContent(block.type, saved());
      case 'resource': {
        const r = block.resource;
        if ('blob' in r && typeof r.blob === 'string')
          return { ...mediaContent('blob', saved()), uri: r.uri };
        const text = 'text' in r && typeof r.text === 'string' ? r.text : '';
        return { type: 'text', text, uri: r.uri, ...(r.mimeType !== undefined && { mimeType: r.mimeType }) };
      }
      case 'resource_link':
        return {
          type: 'resource_link',
          uri: block.uri,
          name: block.name,
          ...(block.mimeType !== undefined && { mimeType: block.mimeType }),
          ...(block.description !== undefined && { description: block.description }),
        };
      default:
        // A content type from a newer revision: shown as its JSON, as results.ts keeps it.
        return { type: 'text', text: JSON.stringify(block) };
    }
  });
}

function mediaContent(type: 'image' | 'audio' | 'blob', ref: MediaRef): ApiContent {
  return { type, mimeType: ref.mimeType, url: `/media/${ref.fileName}`, bytes: ref.bytes };
}
