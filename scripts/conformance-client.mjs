#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) in client
// mode against our client, for the stable and the next suite version, and prints one
// verdict table per version. Plain Node ESM; runs on the root project's Node 20 and
// launches the suite (which needs Node >= 22) on the Node 24 installed by
// tools/conformance. See docs/conformance.md.
//
//   node scripts/conformance-client.mjs [--version stable|next|both] [--scenario NAME]...
//        [--json] [--include-deferred] [--client PATH.mjs | --entry PATH.ts] [--timeout MS]
//        [--suite-timeout S] [--spec-version V] [--jobs N]
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ensureInstalled,
  NODE24,
  NODE24_BIN_DIR,
  PRELOAD,
  printTable,
  processGroups,
  ROOT,
  SUITES,
  TOOLS,
} from './conformance-common.mjs';

const CLIENT_SOURCE = join(ROOT, 'test', 'conformance', 'everything-client.ts');
const CLIENT_BUILD = join(TOOLS, '.build', 'everything-client.mjs');
const RESULTS_ROOT = join(ROOT, 'conformance-results');

// Scenarios shown as "deferred", not counted, unless --include-deferred: none at present (every
// client scenario of both suite versions has a handler). Kept for the next suite version's.
const DEFERRED = [];
const isDeferred = (name) => DEFERRED.some((re) => re.test(name));

const USAGE = `usage: node scripts/conformance-client.mjs [options]
  --version stable|next|both  suite version(s) to run (default both)
  --scenario NAME             run only this scenario; repeatable (default: every scenario
                              the suite lists, one suite run each)
  --jobs N                    scenarios run at once (default: the machine's cores, at least 2)
  --include-deferred          count deferred scenarios (none at present) instead of deferring them
  --client PATH               run this prebuilt .mjs client instead of building
                              test/conformance/everything-client.ts
  --entry PATH                TypeScript entry to bundle (default
                              test/conformance/everything-client.ts)
  --json                      print the summary as JSON on stdout (tables go to stderr)
  --timeout MS                per-scenario client timeout passed to the suite (default 30000)
  --suite-timeout S           wall-clock bound for one suite run; its process group is
                              killed after it (default 300)
  --spec-version V            passed to the suite (e.g. 2026-07-28); a suite version that
                              does not know V is skipped
  -h, --help`;

let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      version: { type: 'string', default: 'both' },
      scenario: { type: 'string', multiple: true, default: [] },
      'include-deferred': { type: 'boolean', default: false },
      client: { type: 'string' },
      entry: { type: 'string' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '30000' },
      'suite-timeout': { type: 'string', default: '300' },
      'spec-version': { type: 'string' },
      jobs: { type: 'string', default: String(Math.max(2, availableParallelism())) },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }));
} catch (err) {
  console.error(`${err.message}\n${USAGE}`);
  process.exit(2);
}
if (opts.help) {
  console.log(USAGE);
  process.exit(0);
}
const versions = opts.version === 'both' ? ['stable', 'next'] : [opts.version];
if (!versions.every((v) => v in SUITES)) die(`--version must be stable, next or both (got ${opts.version})`);
const clientTimeoutMs = Number.parseInt(opts.timeout, 10);
const suiteTimeoutMs = Number.parseInt(opts['suite-timeout'], 10) * 1000;
if (!(clientTimeoutMs > 0) || !(suiteTimeoutMs > 0)) die('--timeout and --suite-timeout must be positive');
const jobs = Number.parseInt(opts.jobs, 10);
if (!(jobs > 0)) die(`--jobs must be a positive whole number (got ${opts.jobs})`);

/** Runs `work` over `items`, at most `limit` at once; results in the items' order. */
async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

// Human-readable output goes to stdout, or to stderr when --json owns stdout.
const out = opts.json
  ? (s = '') => process.stderr.write(`${s}\n`)
  : (s = '') => process.stdout.write(`${s}\n`);
const info = (s) => process.stderr.write(`[conformance] ${s}\n`);

function die(msg, code = 2) {
  console.error(`conformance-client: ${msg}`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------
// Process-group bookkeeping: every suite run is its own process group (detached), which
// also holds the test servers and every client it launches. We kill the whole group on
// timeout, after the suite exits (stragglers), and when we are interrupted.
const { liveGroups, killGroup } = processGroups(info);

// ---------------------------------------------------------------------------------------
// 1. tools/conformance installed?

// 2. the client under test
async function buildClient() {
  if (opts.client) {
    const p = resolve(opts.client);
    if (!existsSync(p)) die(`--client ${opts.client}: no such file`);
    info(`using prebuilt client ${relative(ROOT, p)} (no build)`);
    return p;
  }
  const source = opts.entry ? resolve(opts.entry) : CLIENT_SOURCE;
  if (!existsSync(source)) {
    die(`${relative(ROOT, source)} does not exist yet; pass --client <file.mjs> to run another client`);
  }
  const esbuild = await import('esbuild');
  const started = Date.now();
  // Everything is bundled (our src, the SDK, zod, ajv…): the bundle is run by Node 24
  // with the suite's cwd, far from the root node_modules, so it must be self-contained.
  // The banner gives CommonJS dependencies bundled into ESM a working `require` for Node
  // built-ins (otherwise: "Dynamic require of 'x' is not supported").
  await esbuild.build({
    entryPoints: [source],
    outfile: CLIENT_BUILD,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Prefer packages' ESM builds: some ship a UMD "main" whose relative requires a bundle
    // cannot follow (jsonc-parser), while their "module" build bundles cleanly.
    mainFields: ['module', 'main'],
    sourcemap: 'linked',
    tsconfig: existsSync(join(ROOT, 'tsconfig.json')) ? join(ROOT, 'tsconfig.json') : undefined,
    banner: {
      js: "import { createRequire as __sbCreateRequire } from 'node:module'; const require = __sbCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  info(`built ${relative(ROOT, CLIENT_BUILD)} in ${Date.now() - started} ms`);
  return CLIENT_BUILD;
}

// ---------------------------------------------------------------------------------------
function suiteEnv(markersDir) {
  return {
    ...process.env,
    PATH: `${NODE24_BIN_DIR}:${process.env.PATH ?? ''}`,
    NODE_OPTIONS: `--import=${pathToFileURL(PRELOAD).href}`,
    SWITCHBOARD_CONFORMANCE_MARKERS: markersDir,
    // The client's own limits follow the suite's per-scenario timeout (scenario-kit.ts).
    SWITCHBOARD_CONFORMANCE_TIMEOUT_MS: String(clientTimeoutMs),
  };
}

function suiteCli(version) {
  return join(TOOLS, 'node_modules', SUITES[version].pkg, 'dist', 'index.js');
}

function suiteVersionString(version) {
  return JSON.parse(readFileSync(join(TOOLS, 'node_modules', SUITES[version].pkg, 'package.json'), 'utf8'))
    .version;
}

function listClientScenarios(version) {
  const args = [suiteCli(version), 'list', '--client'];
  if (opts['spec-version']) args.push('--spec-version', opts['spec-version']);
  const r = spawnSync(NODE24, args, { cwd: TOOLS, env: suiteEnv(''), encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n')[0] };
  const names = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  return { names };
}

function runSuite(version, clientPath, dirs, scenario) {
  // `exec`: the suite runs the command through a shell and, on its per-scenario timeout,
  // kills only the shell; exec makes the client itself the process it kills.
  const command = `exec ${NODE24} --enable-source-maps ${clientPath}`;
  if (/\s/.test(NODE24) || /\s/.test(clientPath)) {
    die(`paths must not contain spaces (the suite splits --command on spaces): ${command}`);
  }
  const args = [
    suiteCli(version),
    'client',
    '--command',
    command,
    '-o',
    dirs.results,
    '--timeout',
    String(clientTimeoutMs),
  ];
  args.push('--scenario', scenario);
  if (opts['spec-version']) args.push('--spec-version', opts['spec-version']);

  const log = openSync(dirs.log, 'a');
  writeSync(log, `$ node ${args.map((a) => (/[\s"]/.test(a) ? JSON.stringify(a) : a)).join(' ')}\n\n`);
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(NODE24, args, {
      cwd: TOOLS,
      env: suiteEnv(dirs.markers),
      stdio: ['ignore', log, log],
      detached: true, // own process group: killGroup() reaches servers and clients too
    });
    liveGroups.add(child.pid);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      info(`${version}: suite exceeded ${suiteTimeoutMs / 1000}s, killing its process group`);
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    }, suiteTimeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      closeSync(log);
      resolvePromise({ exitCode: -1, timedOut, error: err.message, ms: Date.now() - started });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // Stragglers (a client that outlived the suite's kill of its shell, a server
      // that was never closed) share the group: make sure nothing survives.
      killGroup(child.pid, 'SIGKILL');
      liveGroups.delete(child.pid);
      closeSync(log);
      resolvePromise({ exitCode: code ?? -1, signal, timedOut, ms: Date.now() - started });
    });
  });
}

// ---------------------------------------------------------------------------------------
// Results: <results>/<scenario>-<ISO timestamp with : and . replaced by ->/checks.json;
// scenario names with a "/" (auth/…) become a subdirectory.
const TS_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
function collectChecks(resultsDir) {
  const found = new Map();
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const ent of readdirSync(dir, { withFileTypes: true })) {
      if (!ent.isDirectory()) continue;
      const full = join(dir, ent.name);
      const checksFile = join(full, 'checks.json');
      if (TS_SUFFIX.test(ent.name) && existsSync(checksFile)) {
        const scenario = relative(resultsDir, full).split('\\').join('/').replace(TS_SUFFIX, '');
        try {
          found.set(scenario, JSON.parse(readFileSync(checksFile, 'utf8')));
        } catch (err) {
          found.set(scenario, { parseError: err.message });
        }
      } else {
        walk(full);
      }
    }
  };
  walk(resultsDir);
  return found;
}

// A scenario whose only blemish is a timing warning is run once more, alone. With other
// scenarios running beside it on two cores, a reconnect measured at 765 ms instead of 500
// says more about that load than about the client. The re-run's verdict counts,
// and the note says it was re-run; a failure or any other warning is never re-run.
const TIMING_CHECKS = new Set(['client-sse-retry-timing']);

function onlyTimingWarnings(checks) {
  if (!Array.isArray(checks)) return false;
  const blemishes = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  return blemishes.length > 0 && blemishes.every((c) => c.status === 'WARNING' && TIMING_CHECKS.has(c.id));
}

async function rerunTimingWarnings(rows, found, version, clientPath, base) {
  const out = [];
  for (const row of rows) {
    if (row.verdict !== 'warn' || !onlyTimingWarnings(found.get(row.scenario))) {
      out.push(row);
      continue;
    }
    const dirs = {
      results: join(base, 'rerun', 'results'),
      markers: join(base, 'rerun', 'markers'),
      log: join(base, 'rerun', `${row.scenario.replaceAll('/', '_')}.log`),
    };
    mkdirSync(dirs.results, { recursive: true });
    mkdirSync(dirs.markers, { recursive: true });
    info(`${version}: ${row.scenario} warned only on timing; running it once more, alone`);
    const run = await runSuite(version, clientPath, dirs, row.scenario);
    const again = judge(row.scenario, collectChecks(dirs.results).get(row.scenario), dirs.markers, run);
    out.push({
      ...again,
      note: `re-run alone after a timing warning (${row.note})${again.note ? `; ${again.note}` : ''}`,
    });
  }
  return out;
}

function markerPath(markersDir, scenario) {
  return join(markersDir, `${scenario}.done`);
}

function judge(scenario, checks, markersDir, suiteRun) {
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 };
  const deferred = isDeferred(scenario) && !opts['include-deferred'];
  const marker = existsSync(markerPath(markersDir, scenario));
  let verdict;
  let note = '';
  if (checks === undefined) {
    verdict = 'fail';
    note = suiteRun.timedOut ? 'no checks.json (suite timed out)' : 'no checks.json (scenario did not run)';
  } else if (!Array.isArray(checks)) {
    verdict = 'fail';
    note = `unreadable checks.json: ${checks.parseError}`;
  } else {
    for (const c of checks) if (c.status in counts) counts[c.status]++;
    const firstBad = checks.find((c) => c.status === 'FAILURE') ?? checks.find((c) => c.status === 'WARNING');
    const describe = (c) => {
      const why = c.errorMessage ?? c.details?.message;
      return `${c.id}${why ? `: ${String(why).replace(/\s+/g, ' ')}` : ''}`;
    };
    if (counts.FAILURE > 0) {
      verdict = 'fail';
      note = describe(firstBad);
    } else if (counts.SUCCESS === 0) {
      verdict = 'empty';
      note = checks.length === 0 ? 'no checks' : 'no SUCCESS check';
    } else if (!marker) {
      verdict = 'fail';
      note = 'client did not finish (no marker): vacuous pass';
    } else if (counts.WARNING > 0) {
      verdict = 'warn';
      note = describe(firstBad);
    } else {
      verdict = 'pass';
    }
    if (!marker && verdict !== 'fail' && !note.includes('marker')) note += note ? '; no marker' : 'no marker';
  }
  if (note.length > 110) note = `${note.slice(0, 107)}...`;
  return { scenario, verdict: deferred ? 'deferred' : verdict, underlying: verdict, counts, marker, note };
}

// ---------------------------------------------------------------------------------------
ensureInstalled(info, die);
const nodeVersion = spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (!/^v(2[2-9]|[3-9]\d)\./.test(nodeVersion))
  die(`${relative(ROOT, NODE24)} is ${nodeVersion || 'not runnable'}; need >= 22`);
const clientPath = await buildClient();

const summary = {
  node: nodeVersion,
  client: relative(ROOT, clientPath),
  versions: [],
  passed: 0,
  failed: 0,
  deferred: 0,
};
for (const version of versions) {
  const suiteVersion = suiteVersionString(version);
  const listed = listClientScenarios(version);
  if (listed.error) {
    out(`\n${version} (${suiteVersion}): skipped: ${listed.error}`);
    summary.versions.push({ version, suiteVersion, skipped: listed.error });
    continue;
  }
  let expected = listed.names;
  const selected = opts.scenario;
  if (selected.length > 0) {
    const missing = selected.filter((n) => !expected.includes(n));
    if (missing.length > 0)
      out(`\n${version} (${suiteVersion}): not in this suite version: ${missing.join(', ')}`);
    expected = selected.filter((n) => expected.includes(n));
    if (expected.length === 0) {
      summary.versions.push({ version, suiteVersion, skipped: `no scenario ${missing.join(', ')}` });
      continue;
    }
  }

  const base = join(RESULTS_ROOT, suiteVersion);
  const dirs = {
    results: join(base, 'results'),
    markers: join(base, 'markers'),
    logs: join(base, 'logs'),
  };
  rmSync(base, { recursive: true, force: true });
  mkdirSync(dirs.results, { recursive: true });
  mkdirSync(dirs.logs, { recursive: true });
  mkdirSync(dirs.markers, { recursive: true });

  info(
    `${version} (${suiteVersion}): running ${selected.length > 0 ? `scenario ${expected.join(', ')}` : `${expected.length} scenarios`}; ${jobs} at a time; logs in ${relative(ROOT, dirs.logs)}`,
  );
  // One suite run per scenario, at most --jobs at once. The suite's own `--suite all` starts
  // every scenario together: 48 clients, their servers and OAuth servers on a 2-core machine
  // time out for the machine's sake, not the client's.
  const started = Date.now();
  const runs = await pool(expected, jobs, (name) =>
    runSuite(
      version,
      clientPath,
      { ...dirs, log: join(dirs.logs, `${name.replaceAll('/', '_')}.log`) },
      name,
    ),
  );
  const run = {
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? 0,
    signal: runs.find((r) => r.signal)?.signal ?? null,
    timedOut: runs.some((r) => r.timedOut),
    ms: Date.now() - started,
  };
  info(
    `${version}: suite exited ${run.signal ?? run.exitCode}${run.timedOut ? ' (timed out)' : ''} after ${(run.ms / 1000).toFixed(1)} s`,
  );

  const found = collectChecks(dirs.results);
  const names = [...new Set([...expected, ...found.keys()])];
  let rows = names.map((n) => judge(n, found.get(n), dirs.markers, run));
  rows = await rerunTimingWarnings(rows, found, version, clientPath, base);
  const counted = rows.filter((r) => r.verdict !== 'deferred');
  const passed = counted.filter((r) => r.verdict === 'pass').length;
  const failed = counted.length - passed;
  const deferred = rows.length - counted.length;
  summary.passed += passed;
  summary.failed += failed;
  summary.deferred += deferred;
  summary.versions.push({
    version,
    suiteVersion,
    seconds: Math.round(run.ms / 100) / 10,
    suiteExit: run.signal ?? run.exitCode,
    timedOut: run.timedOut,
    passed,
    failed,
    deferred,
    scenarios: rows,
  });

  out('');
  printTable(
    out,
    `== ${version}: @modelcontextprotocol/conformance ${suiteVersion} (${(run.ms / 1000).toFixed(1)} s) ==`,
    rows,
  );
  out(
    `${version}: ${passed} passed, ${failed} failed (warn/empty count as failed), ${deferred} deferred${run.timedOut ? ', SUITE TIMED OUT' : ''}`,
  );
}

if (summary.versions.every((v) => v.skipped))
  die('nothing ran: no selected suite version has the selected scenario(s)');
mkdirSync(RESULTS_ROOT, { recursive: true });
writeFileSync(join(RESULTS_ROOT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
out('');
out(`${summary.passed} passed, ${summary.failed} failed`);
process.exit(summary.failed > 0 ? 1 : 0);
