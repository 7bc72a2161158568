import { rawSandbox } from '../../core/config/sandbox-config.js';
import {
  type AuthConfig,
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TIMEOUTS,
  type RawServerEntryFields,
  type ServerConfig,
} from '../../core/server-config.js';

/**
 * A server's normalized config written back as the entry a person would put under
 * `servers.<name>` in a config file: defaults left out, `${VAR}` references kept as they
 * were (values are expanded only when a connection starts). Normalizing the result gives the
 * same config again, so the dashboard can show an entry, let it be edited, and send it back.
 * For callers that may not manage servers, the values that can hold credentials (env,
 * headers, auth secrets) are masked.
 */

/** What a masked value reads as. */
export const MASK = '***';

/** The entry of `config`; with `reveal: false` its credentials are masked. */
export function entryOf(config: ServerConfig, options: { readonly reveal: boolean }): RawServerEntryFields {
  const secret = (value: string) => (options.reveal ? value : MASK);
  const secrets = (values: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, secret(v)]));
  const t = config.transport;
  const entry: RawServerEntryFields =
    t.kind === 'stdio'
      ? {
          command: t.command,
          ...(t.args.length > 0 && { args: [...t.args] }),
          ...(Object.keys(t.env).length > 0 && { env: secrets(t.env) }),
          ...(t.cwd !== undefined && { cwd: t.cwd }),
          ...(t.sandbox && { sandbox: rawSandbox(t.sandbox) }),
        }
      : {
          ...(t.kind === 'sse' && { transport: 'sse' as const }),
          url: t.url,
          ...(Object.keys(t.headers).length > 0 && { headers: secrets(t.headers) }),
        };
  const timeouts = {
    ...(config.timeouts.connectMs !== DEFAULT_TIMEOUTS.connectMs && {
      connect: config.timeouts.connectMs / 1000,
    }),
    ...(config.timeouts.requestMs !== DEFAULT_TIMEOUTS.requestMs && {
      request: config.timeouts.requestMs / 1000,
    }),
    ...(config.startupTimeoutMs !== DEFAULT_STARTUP_TIMEOUT_MS && {
      startup: config.startupTimeoutMs / 1000,
    }),
  };
  const protocol = config.protocol;
  return {
    ...entry,
    ...(config.auth && { auth: authEntry(config.auth, secret) }),
    ...(!config.enabled && { enabled: false }),
    ...(Object.keys(timeouts).length > 0 && { timeouts }),
    ...(protocol.kind !== 'auto' && {
      protocol: protocol.kind === 'pinned' ? protocol.version : protocol.kind,
    }),
    ...(config.roots && { roots: config.roots.map((r) => ({ ...r })) }),
    ...(config.trust !== 'untrusted' && { trust: config.trust }),
    ...((config.tools.include !== undefined || config.tools.exclude.length > 0) && {
      tools: {
        ...(config.tools.include !== undefined && { include: [...config.tools.include] }),
        ...(config.tools.exclude.length > 0 && { exclude: [...config.tools.exclude] }),
      },
    }),
    ...(config.deferral !== 'deferred' && { deferral: config.deferral }),
    ...(config.optionalTasks !== 'task' && { optionalTasks: config.optionalTasks }),
    ...(config.taskAfter && { taskAfter: taskAfterEntry(config.taskAfter) }),
    ...(config.description !== undefined && { description: config.description }),
    ...(config.title !== undefined && { title: config.title }),
  };
}

/** `taskAfter` as an entry writes it: seconds for every tool, or seconds per glob. */
function taskAfterEntry(rules: NonNullable<ServerConfig['taskAfter']>): number | Record<string, number> {
  const only = rules.length === 1 ? rules[0] : undefined;
  if (only?.tools === '*') return only.afterMs / 1000;
  return Object.fromEntries(rules.map((rule) => [rule.tools, rule.afterMs / 1000]));
}

function authEntry(
  auth: AuthConfig,
  secret: (value: string) => string,
): NonNullable<RawServerEntryFields['auth']> {
  if (auth.type === 'bearer') return { type: 'bearer', token: secret(auth.token) };
  const { type: _type, clientSecret, privateKey, assertion, idp, scopes, ...rest } = auth;
  return {
    type: 'oauth',
    ...rest,
    ...(scopes && { scopes: [...scopes] }),
    ...(clientSecret !== undefined && { clientSecret: secret(clientSecret) }),
    ...(privateKey !== undefined && { privateKey: secret(privateKey) }),
    ...(assertion !== undefined && { assertion: secret(assertion) }),
    ...(idp && {
      idp: {
        ...idp,
        ...(idp.clientSecret !== undefined && { clientSecret: secret(idp.clientSecret) }),
        ...(idp.idToken !== undefined && { idToken: secret(idp.idToken) }),
      },
    }),
  };
}
