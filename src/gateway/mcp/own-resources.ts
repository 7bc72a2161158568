import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { Host } from '../../host/host.js';
import { type ServerViewer, visibleStatus, visibleStatuses } from '../visible-servers.js';

/**
 * The gateway's own read-only resources: the list of upstream servers with their state, and
 * each server's status (state, protocol version, counts, the last error and its fix). Both
 * show only the servers the caller sees, by the rule the API's server list follows
 * (visible-servers.ts): another server's status is not found, as if it did not exist.
 */
const SERVERS_URI = 'switchboard://servers';
const STATUS_TEMPLATE = 'switchboard://servers/{name}/status';
const STATUS = /^switchboard:\/\/servers\/([^/]+)\/status$/;

export function ownResources(): Resource[] {
  return [
    {
      uri: SERVERS_URI,
      name: 'servers',
      title: 'Upstream servers',
      description: 'The servers behind this gateway, with their state and tool counts.',
      mimeType: 'application/json',
    },
  ];
}

export function ownResourceTemplates(): ResourceTemplateType[] {
  return [
    {
      uriTemplate: STATUS_TEMPLATE,
      name: 'server-status',
      title: 'Server status',
      description: "One upstream server's state, protocol version, counts and last error.",
      mimeType: 'application/json',
    },
  ];
}

/** Whether `uri` is in the gateway's own scheme of status resources (visible or not). */
export function isOwnResourceUri(uri: string): boolean {
  return uri === SERVERS_URI || STATUS.test(uri);
}

/**
 * The contents of one of our resources as `viewer` may read it, or undefined when `uri` is not
 * ours or names a server the viewer does not see.
 */
export function ownResource(host: Host, viewer: ServerViewer, uri: string): ReadResourceResult | undefined {
  const json = (value: unknown): ReadResourceResult => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
  });
  if (uri === SERVERS_URI) {
    return json(
      visibleStatuses(host, viewer).map((s) => ({
        name: s.name,
        transport: s.transport,
        state: s.state,
        tools: s.tools,
      })),
    );
  }
  const match = STATUS.exec(uri);
  if (!match) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(match[1]!);
  } catch {
    return undefined; // A malformed escape names no server.
  }
  const status = visibleStatus(host, viewer, name);
  return status && json(status);
}

/**
 * Completions of the status template's `{name}` (MCP "Completion", `ref/resource`): the names
 * of the servers `viewer` sees that start with `value`; undefined when `uriTemplate` or
 * `argument` is not ours. At most 100 values (the spec's limit per response).
 */
export function completeOwnTemplate(
  host: Host,
  viewer: ServerViewer,
  uriTemplate: string,
  argument: { readonly name: string; readonly value: string },
): { values: string[]; total: number; hasMore: boolean } | undefined {
  if (uriTemplate !== STATUS_TEMPLATE || argument.name !== 'name') return undefined;
  const names = visibleStatuses(host, viewer)
    .map((s) => s.name)
    .filter((n) => n.startsWith(argument.value));
  return { values: names.slice(0, 100), total: names.length, hasMore: names.length > 100 };
}
