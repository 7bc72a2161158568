import { interpolate } from '../core/interpolate.js';
import type { ServerConfig } from '../core/server-config.js';

/**
 * The values of a server's config that must never reach a log: its env values and header
 * values, expanded as the connection will expand them. Unset variables are skipped.
 */
export function secretsOf(
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const t = config.transport;
  const raw = t.kind === 'stdio' ? Object.values(t.env) : Object.values(t.headers);
  const out: string[] = [];
  for (const value of raw) {
    try {
      const expanded = interpolate(value, env, { server: config.name, field: 'secret' });
      out.push(expanded);
      // "Bearer <token>": the token alone is the secret too.
      const token = /^\s*Bearer\s+(.+)$/i.exec(expanded)?.[1];
      if (token) out.push(token);
    } catch {
      // An unset variable: the connection will refuse to start, nothing to hide.
    }
  }
  return out;
}
