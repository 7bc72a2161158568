/**
 * Writes test/fixtures/catalogs/published-tools.json: the tool lists of the published MCP
 * reference servers installed as dev dependencies, exactly as each server sends them. Search
 * tests and token benchmarks run against this real catalog without starting any process.
 *
 *   npx tsx scripts/snapshot-published-tools.ts
 *
 * Each server is started as scripts/snapshot-tools.ts says, with a throwaway directory for the
 * filesystem server and a throwaway memory file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SnapshotSpec, writeSnapshot } from './snapshot-tools.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'test', 'fixtures', 'catalogs', 'published-tools.json');

const SERVERS: readonly SnapshotSpec[] = [
  // The launcher's first argument picks the transport; `stdio` is its default, said anyway.
  { server: 'everything', packageName: '@modelcontextprotocol/server-everything', args: () => ['stdio'] },
  // The allowed directory is an argument; it appears in no tool definition.
  { server: 'filesystem', packageName: '@modelcontextprotocol/server-filesystem', args: (s) => [s] },
  {
    server: 'memory',
    packageName: '@modelcontextprotocol/server-memory',
    args: () => [],
    env: (s) => ({ MEMORY_FILE_PATH: join(s, 'memory.jsonl') }),
  },
  {
    server: 'sequential-thinking',
    packageName: '@modelcontextprotocol/server-sequential-thinking',
    args: () => [],
    env: () => ({ DISABLE_THOUGHT_LOGGING: 'true' }),
  },
];

const scratch = mkdtempSync(join(tmpdir(), 'switchboard-snapshot-'));
try {
  await writeSnapshot({
    specs: SERVERS,
    scratch,
    resolveFrom: fileURLToPath(import.meta.url),
    generatedBy: 'scripts/snapshot-published-tools.ts',
    out,
    root,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
