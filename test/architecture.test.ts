import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers' dependencies point one way (see README "Architecture"): a layer may import only
 * the layers listed for it. A new layer must be added here before it can be imported.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  client: ['core'],
  'config-files': ['core'],
  storage: ['core'],
  policy: ['core'],
  host: ['core', 'client', 'storage', 'policy'],
  agents: ['core', 'client', 'storage', 'policy', 'host'],
  gateway: ['core', 'client', 'storage', 'policy', 'host'],
  app: ['core', 'client', 'storage', 'config-files', 'policy', 'host', 'agents', 'gateway'],
  cli: ['core', 'client', 'storage', 'config-files', 'policy', 'host', 'agents', 'gateway', 'app'],
};
/** Node-only modules stay in the few places that need them. */
const NODE_ONLY: Record<string, readonly string[]> = {
  'node:child_process': [
    'client/transports/stdio.ts',
    'client/transports/process-group.ts',
    // Spawns the stdio server (stdio.ts frames its messages).
    'client/transports/server-process.ts',
    'client/auth/login/open-browser.ts',
    // Finds out whether bubblewrap can create namespaces here, by running it.
    'client/sandbox/bwrap-probe.ts',
    // Asks the container runtime whether it runs containers, and removes a sandbox's container.
    'client/sandbox/container-launch.ts',
    // The host's watchdog, which ends its stdio servers' trees if the host is killed.
    'host/supervisor/spawn-watchdog.ts',
  ],
  'better-sqlite3': ['storage/database.ts'],
  pg: [
    'storage/postgres-database.ts',
    // LISTEN on a connection of its own (types only: the database module loads the driver).
    'storage/postgres-notifications.ts',
  ],
  undici: [
    'client/transports/guarded-fetch.ts',
    // Relays a session's request to the replica that owns it with the caller's own Host,
    // which fetch replaces.
    'gateway/replicas/forward-request.ts',
  ],
};

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

describe('architecture', () => {
  const all = files(src);

  it('has every layer declared', () => {
    const layers = new Set(all.map((f) => relative(src, f).split('/')[0]!));
    expect([...layers].sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('keeps imports pointing one way', () => {
    const violations: string[] = [];
    for (const file of all) {
      const layer = relative(src, file).split('/')[0]!;
      for (const spec of imports(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(src, resolve(dirname(file), spec)).split('/')[0]!;
        if (target !== layer && !ALLOWED[layer]!.includes(target))
          violations.push(`${relative(src, file)} → ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps Node-only modules where they belong', () => {
    const violations: string[] = [];
    for (const file of all) {
      for (const spec of imports(file)) {
        const allowed = NODE_ONLY[spec];
        if (allowed && !allowed.includes(relative(src, file)))
          violations.push(`${relative(src, file)} imports ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('names files in kebab-case and keeps them under 600 lines', () => {
    for (const file of all) {
      expect(relative(src, file)).toMatch(/^[a-z0-9/-]+\.ts$/);
      expect(readFileSync(file, 'utf8').split('\n').length, relative(src, file)).toBeLessThan(600);
    }
  });
});
