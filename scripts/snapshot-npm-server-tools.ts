/**
 * Writes test/fixtures/catalogs/npm-server-tools.json: the tool lists of popular MCP servers
 * published on npm that are not dependencies of this project, for measuring tool search on
 * words other servers use. Install them into a throwaway directory first, at the versions
 * below, then point the script at it:
 *
 *   npm install --prefix <dir> --ignore-scripts <each package@version below>
 *   npx tsx scripts/snapshot-npm-server-tools.ts <dir>
 *
 * With `--fresh` it writes test/fixtures/catalogs/fresh-server-tools.json instead: the
 * servers added for the fresh labelled set (search-queries-fresh.json), which the tune and
 * held-out halves never saw.
 *
 * Servers that want credentials get placeholders: listing tools calls no upstream API, and
 * no tool is called. Each server is started as scripts/snapshot-tools.ts says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SnapshotSpec, writeSnapshot } from './snapshot-tools.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fresh = process.argv.includes('--fresh');
const out = join(
  root,
  'test',
  'fixtures',
  'catalogs',
  fresh ? 'fresh-server-tools.json' : 'npm-server-tools.json',
);
const placeholder = 'placeholder-not-a-credential';

/** Server, package and version (the versions the fixture was made from). */
const SERVERS: readonly SnapshotSpec[] = [
  {
    server: 'brave-search',
    packageName: '@modelcontextprotocol/server-brave-search',
    version: '0.6.2',
    args: () => [],
    env: () => ({ BRAVE_API_KEY: placeholder }),
  },
  {
    server: 'chrome-devtools',
    packageName: 'chrome-devtools-mcp',
    bin: 'chrome-devtools-mcp',
    version: '1.11.0',
    args: () => [],
  },
  { server: 'context7', packageName: '@upstash/context7-mcp', version: '4.1.1', args: () => [] },
  {
    server: 'github',
    packageName: '@modelcontextprotocol/server-github',
    version: '2025.4.8',
    args: () => [],
    env: () => ({ GITHUB_PERSONAL_ACCESS_TOKEN: placeholder }),
  },
  {
    server: 'google-maps',
    packageName: '@modelcontextprotocol/server-google-maps',
    version: '0.6.2',
    args: () => [],
    env: () => ({ GOOGLE_MAPS_API_KEY: placeholder }),
  },
  { server: 'kubernetes', packageName: 'mcp-server-kubernetes', version: '4.1.7', args: () => [] },
  {
    server: 'notion',
    packageName: '@notionhq/notion-mcp-server',
    version: '2.5.2',
    args: () => [],
    env: () => ({ NOTION_TOKEN: placeholder }),
  },
  { server: 'playwright', packageName: '@playwright/mcp', version: '0.0.83', args: () => ['--headless'] },
  // The connection string is only used when a query runs.
  {
    server: 'postgres',
    packageName: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    args: () => ['postgresql://127.0.0.1:1/none'],
  },
  {
    server: 'puppeteer',
    packageName: '@modelcontextprotocol/server-puppeteer',
    version: '2025.5.12',
    args: () => [],
  },
  {
    server: 'slack',
    packageName: '@modelcontextprotocol/server-slack',
    version: '2025.4.25',
    args: () => [],
    env: () => ({ SLACK_BOT_TOKEN: placeholder, SLACK_TEAM_ID: 'T0000000' }),
  },
];

/**
 * The servers of the fresh labelled set: other domains, other authors' words. (A terminal
 * server was left out: its definitions describe the machine they were listed on.)
 */
const FRESH_SERVERS: readonly SnapshotSpec[] = [
  {
    server: 'airtable',
    packageName: 'airtable-mcp-server',
    version: '1.14.0',
    args: () => [],
    env: () => ({ AIRTABLE_API_KEY: placeholder }),
  },
  {
    server: 'firecrawl',
    packageName: 'firecrawl-mcp',
    version: '3.26.0',
    args: () => [],
    env: () => ({ FIRECRAWL_API_KEY: placeholder }),
  },
  {
    server: 'gitlab',
    packageName: '@modelcontextprotocol/server-gitlab',
    version: '2025.4.25',
    args: () => [],
    env: () => ({ GITLAB_PERSONAL_ACCESS_TOKEN: placeholder }),
  },
  { server: 'mongodb', packageName: 'mongodb-mcp-server', version: '3.0.4', args: () => [] },
  {
    server: 'sentry',
    packageName: '@sentry/mcp-server',
    version: '0.39.0',
    args: () => ['--access-token', placeholder],
  },
  {
    server: 'todoist',
    packageName: 'todoist-mcp',
    version: '1.3.4',
    args: () => [],
    env: () => ({ API_KEY: placeholder, TODOIST_API_TOKEN: placeholder }),
  },
];

const from = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
if (!from)
  throw new Error(
    'usage: tsx scripts/snapshot-npm-server-tools.ts <directory the packages are installed in>',
  );
const scratch = mkdtempSync(join(tmpdir(), 'switchboard-snapshot-'));
try {
  await writeSnapshot({
    specs: fresh ? FRESH_SERVERS : SERVERS,
    scratch,
    resolveFrom: join(resolve(from), 'package.json'),
    generatedBy: 'scripts/snapshot-npm-server-tools.ts',
    out,
    root,
  });
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
