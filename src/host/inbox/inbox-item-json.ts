import type { InboxItem } from './inbox.js';

/**
 * An inbox item as it travels to a front-end in another process or page (the JSON-lines
 * protocol, the inbox socket, the HTTP API): the same fields, dates as ISO-8601 text.
 */
export type InboxItemJson = Omit<InboxItem, 'createdAt' | 'deadline' | 'elicitationId'> & {
  readonly createdAt: string;
  readonly deadline: string;
};

/** The item as JSON-ready data; fields the item lacks are left out, not set to undefined. */
export function inboxItemJson(item: InboxItem): InboxItemJson {
  return {
    id: item.id,
    kind: item.kind,
    server: item.server,
    ...(item.tool !== undefined && { tool: item.tool }),
    ...(item.session !== undefined && { session: item.session }),
    preview: item.preview,
    ...(item.reason !== undefined && { reason: item.reason }),
    ...(item.mode !== undefined && { mode: item.mode }),
    ...(item.requestedSchema !== undefined && { requestedSchema: item.requestedSchema }),
    ...(item.secretFields !== undefined && { secretFields: item.secretFields }),
    ...(item.url !== undefined && { url: item.url }),
    createdAt: item.createdAt.toISOString(),
    deadline: item.deadline.toISOString(),
  };
}
