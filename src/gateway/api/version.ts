import { createRequire } from 'node:module';

/**
 * Switchboard's version, from its package.json: three directories up from this module both
 * in `src/gateway/api/` (run from source) and in `dist/gateway/api/` (the build). Read once.
 */
let cached: string | undefined;

export function switchboardVersion(): string {
  if (cached === undefined) {
    const manifest = createRequire(import.meta.url)('../../../package.json') as { version?: unknown };
    cached = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  }
  return cached;
}
