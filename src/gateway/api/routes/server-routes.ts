import { unusedEntryField } from '../../../core/config/unused-entry-fields.js';
import type { RawServerEntryFields } from '../../../core/server-config.js';
import type { ChangeActor, Host } from '../../../host/host.js';
import { ApiProblem } from '../api-errors.js';
import {
  apiServerDetailSchema,
  apiServerListSchema,
  apiServerSchema,
  serverCreateBody,
  serverReplaceBody,
} from '../api-schemas.js';
import type { ApiServer } from '../api-types.js';
import { type ApiDeps, type ApiRoute, type Caller, defineRoute, json } from '../route.js';
import { entryOf } from '../server-entry.js';
import { isConfigFileSource, serverFor, toApiServer, visibleServers } from '../server-view.js';

/**
 * `/api/servers`: the servers and their states, and — for callers that may manage servers —
 * adding, replacing, removing, enabling, disabling and reloading them. The work is the host's
 * (`register`, `unregister`, `setEnabled`, `reload`), the same the management tools use;
 * the host audits every change with the caller as its actor.
 */

const NAME = { name: 'The server name.' };

/** The routes of `/api/servers`. */
export function serverRoutes({ host, replicas }: ApiDeps): ApiRoute[] {
  const current = (name: string): ApiServer => {
    const status = host.servers().find((s) => s.name === name);
    if (!status) throw new Error(`Server "${name}" vanished right after it was changed.`);
    return toApiServer(status, host, replicas);
  };
  const toggle = (enabled: boolean) =>
    defineRoute({
      method: 'POST',
      path: `/api/servers/{name}/${enabled ? 'enable' : 'disable'}`,
      tag: 'servers',
      summary: enabled ? 'Enable a server (it connects)' : 'Disable a server (it disconnects)',
      description: 'Config-file entries can be toggled too; the switch is kept in the store.',
      params: NAME,
      manage: true,
      responses: { 200: { description: 'The server after the change.', schema: apiServerSchema } },
      handle: async ({ params, caller }) => {
        serverFor(host, caller.principal, params.name!);
        await host.setEnabled(params.name!, enabled, actorOf(caller));
        return json(current(params.name!));
      },
    });

  return [
    defineRoute({
      method: 'GET',
      path: '/api/servers',
      tag: 'servers',
      summary: 'List the servers with their states',
      responses: { 200: { description: 'The servers the caller may see.', schema: apiServerListSchema } },
      handle: async ({ caller }) => json({ servers: visibleServers(host, caller.principal, replicas) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/servers',
      tag: 'servers',
      summary: 'Add a server',
      description:
        'The entry is kept in the store and connected at once, unless it says `enabled: false`. 409 when the name is taken.',
      body: serverCreateBody,
      manage: true,
      responses: { 201: { description: 'The server, connecting.', schema: apiServerSchema } },
      handle: async ({ body, caller }) => {
        if (host.servers().some((s) => s.name === body.name) || host.serverConfig(body.name)) {
          throw new ApiProblem(
            409,
            'ALREADY_EXISTS',
            `A server named "${body.name}" exists already. Choose another name, or replace its entry with PUT /api/servers/${body.name}.`,
            { details: { server: body.name } },
          );
        }
        await host.register({ ...usedEntry(body.entry), name: body.name }, 'api', actorOf(caller));
        return json(current(body.name), 201);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/servers/{name}',
      tag: 'servers',
      summary: 'One server, with its entry',
      description: 'Values that can hold credentials are masked for callers that may not manage servers.',
      params: NAME,
      responses: { 200: { description: 'The server and its entry.', schema: apiServerDetailSchema } },
      handle: async ({ params, caller }) => {
        const status = serverFor(host, caller.principal, params.name!);
        const config = host.serverConfig(status.name);
        // The entry says what the server is now: a toggle since it was written shows as `enabled`,
        // so an entry read here and sent back with PUT keeps the server as it is.
        const now = config && { ...config, enabled: status.state !== 'disabled' };
        const entry = now ? entryOf(now, { reveal: caller.canManage }) : {};
        return json({ ...toApiServer(status, host, replicas), entry });
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/servers/{name}',
      tag: 'servers',
      summary: "Replace a server's entry",
      description:
        'The server reconnects with the new entry (disabled when it says `enabled: false`). Config-file entries are changed in their file (409).',
      params: NAME,
      body: serverReplaceBody,
      manage: true,
      responses: { 200: { description: 'The server, reconnecting.', schema: apiServerSchema } },
      handle: async ({ params, body, caller }) => {
        const status = editable(serverFor(host, caller.principal, params.name!));
        await host.register({ ...usedEntry(body.entry), name: status.name }, status.source, actorOf(caller));
        return json(current(status.name));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/servers/{name}',
      tag: 'servers',
      summary: 'Remove a server',
      description: 'Config-file entries are removed from their file (409).',
      params: NAME,
      manage: true,
      responses: { 204: { description: 'Removed.' } },
      handle: async ({ params, caller }) => {
        const status = editable(serverFor(host, caller.principal, params.name!));
        await host.unregister(status.name, actorOf(caller));
        return new Response(null, { status: 204 });
      },
    }),
    toggle(true),
    toggle(false),
    defineRoute({
      method: 'POST',
      path: '/api/servers/{name}/reload',
      tag: 'servers',
      summary: 'Reconnect a server',
      params: NAME,
      manage: true,
      responses: { 200: { description: 'The server, reconnecting.', schema: apiServerSchema } },
      handle: async ({ params, caller }) => {
        serverFor(host, caller.principal, params.name!);
        host.reload(params.name!);
        await note(host, caller, 'server_reload', params.name!);
        return json(current(params.name!));
      },
    }),
  ];
}

/**
 * `entry`, when every field of it counts: a field its transport would not use (`env` of a
 * remote server, `headers` of a local one) is refused with 400 naming it rather than stored
 * to do nothing.
 */
function usedEntry(entry: RawServerEntryFields): RawServerEntryFields {
  const unused = unusedEntryField(entry);
  if (!unused) return entry;
  const field = `entry.${unused.field}`;
  throw new ApiProblem(
    400,
    'INVALID_REQUEST',
    `The request body is not valid: field "${field}": ${unused.problem}`,
    {
      details: { field },
    },
  );
}

/** The status of a server whose entry may be changed here; 409 for one from a config file. */
function editable<S extends { name: string; source: string }>(status: S): S {
  if (!isConfigFileSource(status.source)) return status;
  throw new ApiProblem(
    409,
    'NOT_EDITABLE',
    `Server "${status.name}" is defined in ${status.source}; change or remove it there (or with ` +
      `switchboard remove ${status.name}). Here it can only be enabled, disabled or reloaded.`,
    { details: { server: status.name, source: status.source } },
  );
}

/** The caller as the host's audit names who changed the server list. */
function actorOf(caller: Caller): ChangeActor {
  return { session: caller.session, via: 'api' };
}

/** Notes a change the host does not audit itself (a reload). */
function note(host: Host, caller: Caller, action: string, server: string): Promise<void> {
  return host.governor.note({ action, session: caller.session, server, details: { via: 'api' } });
}
