import type { ReadResourceResult, Resource, ResourceTemplateType } from '@modelcontextprotocol/server';
import type { Host } from '../../host/host.js';

/**
 * The gateway's own read-only resources: the list of upstream servers with their state, and
 * each server's status (state, protocol version, counts, the last error and its fix).
 */
const SERVERS_URI = 'switchboard://servers';
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
      uriTemplate: 'switchboard://servers/{name}/status',
      name: 'server-status',
      title: 'Server status',
      description: "One upstream server's state, protocol version, counts and last error.",
      mimeType: 'application/json',
    },
  ];
}

/** The contents of one of our resources, or undefined when `uri` is not ours. */
export function ownResource(host: Host, uri: string): ReadResourceResult | undefined {
  const json = (value: unknown): ReadResourceResult => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
  });
  if (uri === SERVERS_URI) {
    return json(
      host.servers().map((s) => ({ name: s.name, transport: s.transport, state: s.state, tools: s.tools })),
    );
  }
  const match = STATUS.exec(uri);
  if (!match) return undefined;
  const name = decodeURIComponent(match[1]!);
  const status = host.servers().find((s) => s.name === name);
  if (!status) return undefined;
  return json(status);
}
