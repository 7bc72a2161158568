import { interpolate } from '../core/interpolate.js';
import type { ServerConfig } from '../core/server-config.js';

/**
 * The values of a server's config that must never reach a log or a recording: its env values,
 * its header values (and the credential inside an `Authorization: <scheme> <credential>`
 * header alone), and the secrets of its `auth` (a bearer token, an OAuth client secret,
 * private key, assertion, the IdP's secret and ID token), expanded as the connection will
 * expand them. Unset variables are skipped: the connection refuses to start then, so there is
 * nothing to hide. Only secret fields of `auth` count, not its words (`"type": "bearer"`,
 * `"grant": "client_credentials"`), which would otherwise be redacted wherever they appear.
 */
export function secretsOf(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const t = config.transport;
  const raw: (string | undefined)[] = t.kind === 'stdio' ? Object.values(t.env) : Object.values(t.headers);
  const auth = config.auth;
  if (auth?.type === 'bearer') raw.push(auth.token);
  if (auth?.type === 'oauth') {
    raw.push(auth.clientSecret, auth.privateKey, auth.assertion, auth.idp?.clientSecret, auth.idp?.idToken);
  }
  const out: string[] = [];
  for (const value of raw) {
    if (value === undefined) continue;
    let expanded: string;
    try {
      expanded = interpolate(value, env, { server: config.name, field: 'secret' });
    } catch {
      continue;
    }
    out.push(expanded);
    // "Bearer <token>", "Basic <credentials>", "token <key>": the credential alone is a secret too.
    const credential = /^\s*[A-Za-z][\w-]*\s+(\S{6,})\s*$/.exec(expanded)?.[1];
    if (credential) out.push(credential);
  }
  return out;
}
