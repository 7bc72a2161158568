import { readFile } from 'node:fs/promises';
import { describeError, SwitchboardError } from '../../core/errors.js';
import { interpolate } from '../../core/interpolate.js';
import type { OAuthConfig, OAuthGrant } from '../../core/server-config.js';

/**
 * The OAuth settings of one server, with `${VAR}` references expanded (at connect time, like
 * headers) and secrets that live in files read when they are used: a workload token file is
 * rotated under a running process, so it is read for every token request.
 */

/** Where the browser comes back after a login, unless the entry says otherwise. */
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:33418/oauth/callback';

export interface OAuthSettings {
  readonly grant: OAuthGrant;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientMetadataUrl?: string;
  readonly issuer?: string;
  readonly scopes?: readonly string[];
  readonly tokenEndpointAuthMethod?: OAuthConfig['tokenEndpointAuthMethod'];
  /** PEM private key for private_key_jwt, read when needed. */
  readonly privateKey?: () => Promise<string>;
  readonly signingAlgorithm: string;
  readonly redirectUri: string;
  /** jwt_bearer: the workload JWT, read when needed. */
  readonly assertion?: () => Promise<string>;
  readonly idp?: {
    readonly issuer?: string;
    readonly tokenEndpoint?: string;
    readonly clientId: string;
    readonly clientSecret?: string;
    readonly idToken: () => Promise<string>;
  };
  readonly dpop?: boolean;
}

/** Expands `config` for `server` from `env`; throws ENV_VAR_MISSING for an unset variable. */
export function resolveOAuthSettings(
  server: string,
  config: OAuthConfig,
  env: Readonly<Record<string, string | undefined>>,
): OAuthSettings {
  const x = (value: string | undefined, field: string) =>
    value === undefined ? undefined : interpolate(value, env, { server, field: `auth.${field}` });
  const secret = (inline: string | undefined, file: string | undefined, field: string) => {
    const value = x(inline, field);
    if (value !== undefined) return async () => value;
    const path = x(file, `${field}File`);
    return path === undefined ? undefined : () => readSecretFile(server, path, `auth.${field}File`);
  };
  const idp = config.idp;
  const idToken = idp && secret(idp.idToken, idp.idTokenFile, 'idp.idToken');
  const privateKey = secret(config.privateKey, config.privateKeyFile, 'privateKey');
  const assertion = secret(config.assertion, config.assertionFile, 'assertion');
  const optional = {
    clientId: x(config.clientId, 'clientId'),
    clientSecret: x(config.clientSecret, 'clientSecret'),
    clientMetadataUrl: x(config.clientMetadataUrl, 'clientMetadataUrl'),
    issuer: x(config.issuer, 'issuer'),
    scopes: config.scopes?.map((s, i) => interpolate(s, env, { server, field: `auth.scopes[${i}]` })),
    tokenEndpointAuthMethod:
      config.tokenEndpointAuthMethod ?? (privateKey !== undefined ? ('private_key_jwt' as const) : undefined),
    privateKey,
    assertion,
    dpop: config.dpop,
  };
  return {
    grant: config.grant,
    ...definedOnly(optional),
    signingAlgorithm: x(config.signingAlgorithm, 'signingAlgorithm') ?? 'RS256',
    redirectUri: x(config.redirectUri, 'redirectUri') ?? DEFAULT_REDIRECT_URI,
    ...(idp &&
      idToken && {
        idp: definedOnly({
          issuer: x(idp.issuer, 'idp.issuer'),
          tokenEndpoint: x(idp.tokenEndpoint, 'idp.tokenEndpoint'),
          clientId: x(idp.clientId, 'idp.clientId') as string,
          clientSecret: x(idp.clientSecret, 'idp.clientSecret'),
          idToken,
        }) as NonNullable<OAuthSettings['idp']>,
      }),
  };
}

async function readSecretFile(server: string, path: string, field: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    throw new SwitchboardError(
      'CONFIG_INVALID',
      `Server "${server}": ${field} "${path}" cannot be read (${describeError(error)}). Fix the path or the file's permissions.`,
      { cause: error, details: { server, field } },
    );
  }
}

/** The object without its undefined values (for `exactOptionalPropertyTypes`-style shapes). */
function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
