import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { NameFilter } from '../../host/catalog/globs.js';
import type { Host } from '../../host/host.js';
import type { NamingMode } from './exposed-names.js';
import { type GatewayPrincipal, servedPrompts, servedResources, servedToolsOf } from './served-catalog.js';
import { toProtocolError } from './upstream-calls.js';

/**
 * What the gateway answers for a tool, prompt or resource a caller is not served now: if the
 * caller would be served it from a server that is reconnecting (the catalog's `away` part,
 * seen through the same expose filter and grants), the host's `UPSTREAM_RECONNECTING` (a
 * distinct JSON-RPC code a client can retry on, upstream-calls.ts); otherwise unknown, as
 * before. So a caller learns nothing of servers its grants do not reach.
 */

/** The error for `tools/call` of `name`, which the caller is not served. */
export function unservedTool(
  host: Host,
  view: { principal: GatewayPrincipal; naming: NamingMode; expose: readonly string[] },
  name: string,
): ProtocolError {
  const away = host.catalog().away;
  const was = away && servedToolsOf(away, view.principal, view.naming, view.expose, false).get(name);
  if (was) return toProtocolError(host.unavailable(was.server, `tool "${name}"`));
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
}

/** The error for `prompts/get` of `name`, which the caller is not served. */
export function unservedPrompt(
  host: Host,
  view: { principal: GatewayPrincipal; naming: NamingMode; keep: NameFilter },
  name: string,
): ProtocolError {
  const away = host.catalog().away;
  const was = away && servedPrompts(away, view.principal, view.naming, view.keep).get(name);
  if (was) return toProtocolError(host.unavailable(was.server, `prompt "${name}"`));
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
}

/** The error for a read or subscribe of `uri`, which the caller is not served. */
export function unservedResource(
  host: Host,
  view: { allows(server: string): boolean; keep: NameFilter },
  uri: string,
): ProtocolError {
  const away = host.catalog().away;
  const was = away && servedResources(away, view, view.keep).resolve(uri);
  if (was && view.keep(was.uri)) return toProtocolError(host.unavailable(was.server, `resource "${uri}"`));
  return new ResourceNotFoundError(uri);
}
