import { isAbsolute } from 'node:path';
import { describeSandbox } from '../../core/config/sandbox-config.js';
import type { Host, ServerStatus } from '../../host/host.js';
import { fixHint } from '../../host/supervisor/fix-hint.js';
import type { Principal } from '../http/context.js';
import { visibleStatuses } from '../visible-servers.js';
import { ApiProblem } from './api-errors.js';
import type { ApiServer } from './api-types.js';
import type { ReplicaViews } from './replica-views.js';

/**
 * Servers as the API shows them, and the checks routes make before they use one: it exists
 * (404), the caller may see it (403), it is connected (409/503 `SERVER_UNAVAILABLE` with its
 * state and what to do).
 */

/**
 * Whether an entry comes from a config file: the host names such entries by the file's path
 * (`config` when it was not told the file). Those are the file's to change; entries added at
 * run time (`api`, `agent`, `gateway`…) live in the store and can be changed here.
 */
export function isConfigFileSource(source: string): boolean {
  return source === 'config' || isAbsolute(source);
}

/**
 * A server's status as the API shows it: where it comes from, whether it can be edited, what
 * to do, and with replicas its state on each of them.
 */
export function toApiServer(status: ServerStatus, host: Host, replicas?: ReplicaViews): ApiServer {
  const config = host.serverConfig(status.name);
  const states = replicas?.serverStates(status.name);
  const description = config?.description;
  const t = config?.transport;
  const hint = fixHint(status, host.logFile(status.name));
  return {
    name: status.name,
    transport: status.transport,
    state: status.state,
    enabled: status.state !== 'disabled',
    ...(status.protocolVersion !== undefined && { protocolVersion: status.protocolVersion }),
    tools: status.tools,
    resources: status.resources,
    prompts: status.prompts,
    source: status.source,
    editable: !isConfigFileSource(status.source),
    ...(description !== undefined && { description }),
    ...(t?.kind === 'stdio' && { sandbox: describeSandbox(t.sandbox) }),
    ...(status.error && { error: { code: status.error.code, message: status.error.message } }),
    ...(hint !== undefined && { hint }),
    rejectedTools: status.rejectedTools.map(({ tool, reason, detail }) => ({ tool, reason, detail })),
    ...(status.incompleteLists && {
      incompleteLists: status.incompleteLists.map(({ kind, reason, pages, items }) => ({
        kind,
        reason,
        pages,
        items,
      })),
    }),
    ...(states && { replicas: states }),
  };
}

/** The servers `principal` may see (visible-servers.ts), as the API shows them. */
export function visibleServers(host: Host, principal: Principal, replicas?: ReplicaViews): ApiServer[] {
  return visibleStatuses(host, principal).map((s) => toApiServer(s, host, replicas));
}

/** The status of `name`: 404 when there is no such server, 403 when the caller may not use it. */
export function serverFor(host: Host, principal: Principal, name: string): ServerStatus {
  const status = host.servers().find((s) => s.name === name);
  if (!status) {
    throw new ApiProblem(404, 'NOT_FOUND', `No server named "${name}". GET /api/servers lists them.`, {
      details: { server: name },
    });
  }
  if (!principal.allows(name)) throw forbidden(`server "${name}"`, principal);
  return status;
}

/** The status of a connected server; else 409 (disabled, needs a login) or 503 (not yet, or failed). */
export function connectedServer(host: Host, principal: Principal, name: string): ServerStatus {
  const status = serverFor(host, principal, name);
  if (status.state === 'connected') return status;
  throw unavailable(status, host);
}

const STATE_WORDS: Readonly<Record<ServerStatus['state'], string>> = {
  connecting: 'still connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  needs_auth: 'waiting for a login',
  failed: 'failed',
  disabled: 'disabled',
};

/** The `SERVER_UNAVAILABLE` refusal for a server that is not connected. */
export function unavailable(status: ServerStatus, host: Host): ApiProblem {
  const hint = fixHint(status, host.logFile(status.name));
  const why = status.error ? ` (${status.error.code}: ${status.error.message})` : '';
  const what = hint ? ` To fix it: ${hint}.` : ' Try again when it is connected.';
  // Disabled or waiting for a login: retrying will not help until a person acts (409).
  const status409 = status.state === 'disabled' || status.state === 'needs_auth';
  // Starting or reconnecting: back soon, so say when to ask again (RFC 9110 §10.2.3).
  const soon = status.state === 'connecting' || status.state === 'reconnecting';
  return new ApiProblem(
    status409 ? 409 : 503,
    'SERVER_UNAVAILABLE',
    `Server "${status.name}" is not connected: it is ${STATE_WORDS[status.state]}${why}.${what}`,
    {
      details: {
        server: status.name,
        state: status.state,
        ...(hint !== undefined && { hint }),
        ...(status.error && { error: { code: status.error.code, message: status.error.message } }),
        ...(soon && { retryable: true }),
      },
      ...(soon && { headers: { 'retry-after': '1' } }),
    },
  );
}

/** The 403 for something the caller's grants do not cover. */
export function forbidden(what: string, principal: Principal): ApiProblem {
  return new ApiProblem(
    403,
    'FORBIDDEN',
    `"${principal.id}" may not use ${what}. Ask for it to be added to this principal's grants.`,
    { details: { principal: principal.id } },
  );
}
