#!/usr/bin/env node
// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) in server mode,
// `--suite all`, for the stable and the next suite version, against a target MCP endpoint on
// 127.0.0.1, and prints one verdict table per version. Plain Node ESM: runs on the project's
// Node 20 and launches the suite (Node >= 22) on the Node 24 of tools/conformance. See the
// "Server suite" section of docs/conformance.md.
//
//   node scripts/conformance-server.mjs [--target fixture|gateway|url] [--gateway-command CMD]
//        [--url URL] [--version stable|next|both] [--scenario NAME]... [--include-deferred]
//        [--timeout MS] [--suite-timeout S] [--start-timeout S] [--spec-version V] [--json]
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
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

const FIXTURE_SOURCE = join(ROOT, 'test', 'fixtures', 'conformance-upstream-main.ts');
const FIXTURE_BUILD = join(TOOLS, '.build', 'conformance-upstream.mjs');
const RESULTS_ROOT = join(ROOT, 'conformance-results', 'server');

// Shown as "deferred", not counted, unless --include-deferred: tasks-status-notifications,
// which 0.2.0-alpha.12 itself skips for every server ("the harness needs a rewrite against the
// new channel"): its one check is SKIPPED whatever the server does, so no server can pass it.
const DEFERRED = [/^tasks-status-notifications$/];
const isDeferred = (name) => DEFERRED.some((re) => re.test(name));
// The line a started target prints once it serves, and the names the gateway target is told.
const LISTENING = /^listening (\S+)\s*$/;
const UPSTREAM_NAME = 'conformance';

const USAGE = `usage: node scripts/conformance-server.mjs [options]
  --target fixture|gateway|url  what to test (default gateway):
                                gateway: switchboard serve (or --gateway-command), serving the
                                fixture over stdio
                                fixture: the conformance upstream fixture's own HTTP server
                                url: an already running server, --url
  --gateway-command CMD         gateway to start (run through sh, cwd = a temp dir holding
                                switchboard.json); it must print "listening <url>" on stdout.
                                Default: this repository's switchboard serve (from source)
  --url URL                     the endpoint for --target url (loopback only)
  --version stable|next|both    suite version(s) to run (default both)
  --scenario NAME               run only this scenario instead of --suite all; repeatable
  --include-deferred            count tasks-status-notifications (a stub the suite skips for
                                every server) instead of deferring it
  --timeout MS                  per-scenario timeout passed to the suite where it has one
                                (default 30000; 0.1.16 has none)
  --suite-timeout S             wall-clock bound of one suite run (default 600)
  --start-timeout S             bound for the target to print its URL (default 30)
  --spec-version V              passed to the suite (a version that does not know V is skipped)
  --json                        print the summary as JSON on stdout (tables go to stderr)
  -h, --help`;

let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      target: { type: 'string', default: 'gateway' },
      'gateway-command': { type: 'string' },
      url: { type: 'string' },
      version: { type: 'string', default: 'both' },
      scenario: { type: 'string', multiple: true, default: [] },
      'include-deferred': { type: 'boolean', default: false },
      timeout: { type: 'string', default: '30000' },
      'suite-timeout': { type: 'string', default: '600' },
      'start-timeout': { type: 'string', default: '30' },
      'spec-version': { type: 'string' },
      json: { type: 'boolean', default: false },
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
if (!['fixture', 'gateway', 'url'].includes(opts.target)) die(`--target must be fixture, gateway or url`);
// The gateway under test by default: `switchboard serve` run from this repository's sources.
opts['gateway-command'] ??=
  `"${process.execPath}" --import "${pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href}" "${join(ROOT, 'src', 'cli', 'main.ts')}" --data-dir ./data serve`;
if (opts.target === 'url' && !opts.url) die('--target url needs --url');
const scenarioTimeoutMs = Number.parseInt(opts.timeout, 10);
const suiteTimeoutMs = Number.parseInt(opts['suite-timeout'], 10) * 1000;
const startTimeoutMs = Number.parseInt(opts['start-timeout'], 10) * 1000;
if (!(scenarioTimeoutMs > 0) || !(suiteTimeoutMs > 0) || !(startTimeoutMs > 0)) {
  die('--timeout, --suite-timeout and --start-timeout must be positive');
}

const out = opts.json
  ? (s = '') => process.stderr.write(`${s}\n`)
  : (s = '') => process.stdout.write(`${s}\n`);
const info = (s) => process.stderr.write(`[conformance:server] ${s}\n`);

function die(msg, code = 2) {
  console.error(`conformance-server: ${msg}`);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------
// Process groups: the target (fixture or gateway, with the upstreams it spawns) and every
// suite run are each their own group; all are SIGKILLed at the end, on timeout and on signals.
const { liveGroups, killGroup } = processGroups(info);

/** Stops a group politely, then for good after 2 s; resolves once the leader has exited. */
function stopGroup(child) {
  if (child.exitCode !== null || child.signalCode !== null) {
    killGroup(child.pid, 'SIGKILL');
    liveGroups.delete(child.pid);
    return Promise.resolve();
  }
  return new Promise((resolvePromise) => {
    const hard = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(hard);
      killGroup(child.pid, 'SIGKILL'); // stragglers: upstreams the leader did not close
      liveGroups.delete(child.pid);
      resolvePromise();
    });
    killGroup(child.pid, 'SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------
// The toolchain and the fixture bundle.

/**
 * Bundles the fixture with everything inlined (SDK, zod, ajv), so it runs from any working
 * directory (the gateway's temp dir) without resolving the root node_modules. The banner
 * gives bundled CommonJS dependencies a working `require` for Node built-ins.
 */
async function buildFixture() {
  const esbuild = await import('esbuild');
  const started = Date.now();
  await esbuild.build({
    entryPoints: [FIXTURE_SOURCE],
    outfile: FIXTURE_BUILD,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    sourcemap: 'linked',
    tsconfig: join(ROOT, 'tsconfig.json'),
    banner: {
      js: "import { createRequire as __sbCreateRequire } from 'node:module'; const require = __sbCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  info(`built ${relative(ROOT, FIXTURE_BUILD)} in ${Date.now() - started} ms`);
}

/** The fixture as a stdio server: what the gateway is told to spawn. */
function fixtureStdioCommand() {
  return { command: process.execPath, args: [FIXTURE_BUILD, '--transport', 'stdio'] };
}

// ---------------------------------------------------------------------------------------
// Targets. Each resolves to { url, stop() }.
function requireLoopback(url, what) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    die(`${what} printed an invalid URL: ${url}`);
  }
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) {
    die(`${what} must serve on 127.0.0.1 (got ${url}): the suite only talks to this machine`);
  }
  return url;
}

/** Spawns `argv` (or `sh -c command`) in its own group and waits for its `listening <url>` line. */
function startListening(what, spawnArgs, logPath) {
  const log = openSync(logPath, 'a');
  const [file, args, options] = spawnArgs;
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', log], detached: true });
  liveGroups.add(child.pid);
  return new Promise((resolvePromise, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(
      () => fail(`did not print "listening <url>" within ${startTimeoutMs / 1000}s`),
      startTimeoutMs,
    );
    let listening = false;
    let failed = false;
    const fail = (why) => {
      // Once listening, the suite's results (and the log) tell what went wrong; report once.
      if (listening || failed) return;
      failed = true;
      clearTimeout(timer);
      stopGroup(child).then(() => reject(new Error(`${what} ${why}; see ${relative(ROOT, logPath)}`)));
    };
    lines.on('line', (line) => {
      writeSync(log, `${line}\n`);
      const match = LISTENING.exec(line);
      if (!match || listening) return;
      listening = true;
      clearTimeout(timer);
      resolvePromise({ url: requireLoopback(match[1], what), stop: () => stopGroup(child) });
    });
    lines.on('close', () => closeSync(log));
    child.once('error', (err) => fail(`could not start: ${err.message}`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
  });
}

async function startTarget(logPath) {
  if (opts.target === 'url') return { url: requireLoopback(opts.url, '--url'), stop: async () => {} };
  if (opts.target === 'fixture') {
    return startListening(
      'the fixture',
      [process.execPath, ['--enable-source-maps', FIXTURE_BUILD, '--transport', 'http', '--port', '0'], {}],
      logPath,
    );
  }
  // The gateway contract (docs/conformance.md, "Server suite"): a temp project dir whose
  // switchboard.json names the fixture as its only server, and the same facts in env vars.
  const projectDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
  const upstream = fixtureStdioCommand();
  const configPath = join(projectDir, 'switchboard.json');
  const config = {
    servers: { [UPSTREAM_NAME]: { command: upstream.command, args: upstream.args, trust: 'trusted' } },
    gateway: { host: '127.0.0.1', port: 0, names: 'passthrough-unique', consent: 'off' },
    governance: { mode: 'full-auto' },
  };
  writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
  const env = {
    ...process.env,
    NODE_OPTIONS: `--import=${pathToFileURL(PRELOAD).href}`,
    SWITCHBOARD_CONFORMANCE_CONFIG: configPath,
    SWITCHBOARD_CONFORMANCE_UPSTREAM: JSON.stringify({ name: UPSTREAM_NAME, ...upstream }),
    // The user's own ~/.switchboard/config.json must not add servers to the run.
    HOME: projectDir,
  };
  let target;
  try {
    target = await startListening(
      'the gateway',
      ['/bin/sh', ['-c', opts['gateway-command']], { cwd: projectDir, env }],
      logPath,
    );
  } catch (err) {
    rmSync(projectDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: target.url,
    stop: async () => {
      await target.stop();
      rmSync(projectDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------
// The suite.
function suiteEnv() {
  return {
    ...process.env,
    PATH: `${NODE24_BIN_DIR}:${process.env.PATH ?? ''}`,
    NODE_OPTIONS: `--import=${pathToFileURL(PRELOAD).href}`,
  };
}
const suiteCli = (version) => join(TOOLS, 'node_modules', SUITES[version].pkg, 'dist', 'index.js');
const suiteVersionString = (version) =>
  JSON.parse(readFileSync(join(TOOLS, 'node_modules', SUITES[version].pkg, 'package.json'), 'utf8')).version;

function listServerScenarios(version) {
  const args = [suiteCli(version), 'list', '--server'];
  if (opts['spec-version']) args.push('--spec-version', opts['spec-version']);
  const r = spawnSync(NODE24, args, { cwd: TOOLS, env: suiteEnv(), encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) return { error: (r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n')[0] };
  const names = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^\s+-\s+(\S+)/.exec(line);
    if (m) names.push(m[1]);
  }
  return { names };
}

/** Whether `conformance server` of this version takes `option` (0.1.16 has no --timeout). */
function serverModeHas(version, option) {
  const help = spawnSync(NODE24, [suiteCli(version), 'server', '--help'], {
    cwd: TOOLS,
    env: suiteEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return help.stdout.includes(option);
}

function runSuite(version, url, dirs, scenario) {
  const args = [suiteCli(version), 'server', '--url', url, '-o', dirs.results];
  if (serverModeHas(version, '--timeout')) args.push('--timeout', String(scenarioTimeoutMs));
  if (scenario) args.push('--scenario', scenario);
  else args.push('--suite', 'all');
  if (opts['spec-version']) args.push('--spec-version', opts['spec-version']);
  const log = openSync(dirs.log, 'a');
  writeSync(log, `$ node ${args.join(' ')}\n\n`);
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(NODE24, args, {
      cwd: TOOLS,
      env: suiteEnv(),
      stdio: ['ignore', log, log],
      detached: true,
    });
    liveGroups.add(child.pid);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      info(`${version}: suite exceeded ${suiteTimeoutMs / 1000}s, killing its process group`);
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    }, suiteTimeoutMs);
    const done = (result) => {
      clearTimeout(timer);
      killGroup(child.pid, 'SIGKILL');
      liveGroups.delete(child.pid);
      closeSync(log);
      resolvePromise({ ...result, timedOut, ms: Date.now() - started });
    };
    child.on('error', (err) => done({ exitCode: -1, error: err.message }));
    child.on('exit', (code, signal) => done({ exitCode: code ?? -1, signal }));
  });
}

// ---------------------------------------------------------------------------------------
// Results: <results>/server-<scenario>-<ISO timestamp, ":" and "." as "-">/checks.json
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
function collectChecks(resultsDir) {
  const found = new Map();
  if (!existsSync(resultsDir)) return found;
  for (const ent of readdirSync(resultsDir, { withFileTypes: true })) {
    const m = RESULT_DIR.exec(ent.name);
    const file = join(resultsDir, ent.name, 'checks.json');
    if (!ent.isDirectory() || !m || !existsSync(file)) continue;
    try {
      found.set(m[1], JSON.parse(readFileSync(file, 'utf8')));
    } catch (err) {
      found.set(m[1], { parseError: err.message });
    }
  }
  return found;
}

// Scenarios whose SUCCESS can come from the wrong reply: an "unknown tool" error result makes
// tools-call-error pass and passes tools-call-simple-text's shape checks.
const UNKNOWN_TOOL = /unknown tool|not found/i;
const VACUITY_GUARDS = {
  'tools-call-error': (checks) => resultText(checks, 'tools-call-error'),
  'tools-call-simple-text': (checks) => resultText(checks, 'tools-call-simple-text'),
};
function resultText(checks, id) {
  const content = checks.find((c) => c.id === id)?.details?.result?.content;
  const text = Array.isArray(content) ? content.map((c) => c?.text ?? '').join(' ') : '';
  return UNKNOWN_TOOL.test(text) ? `passed on an unknown-tool reply: ${text}` : undefined;
}

function judge(scenario, checks, suiteRun) {
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0 };
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
    const vacuous = VACUITY_GUARDS[scenario]?.(checks);
    if (counts.FAILURE > 0) [verdict, note] = ['fail', describe(firstBad)];
    // `wire-schema-valid` (next) is appended to every scenario that exchanged messages: alone,
    // it shows only that nothing malformed was said, not that anything worked.
    else if (!checks.some((c) => c.status === 'SUCCESS' && c.id !== 'wire-schema-valid')) {
      verdict = 'empty';
      const skipped = checks.find((c) => c.status === 'SKIPPED');
      const none = counts.SUCCESS === 0 ? 'no SUCCESS check' : 'no SUCCESS besides wire-schema-valid';
      note = checks.length === 0 ? 'no checks' : `${none}${skipped ? `; ${describe(skipped)}` : ''}`;
    } else if (vacuous) [verdict, note] = ['fail', vacuous];
    else if (counts.WARNING > 0) [verdict, note] = ['warn', describe(firstBad)];
    else verdict = 'pass';
  }
  if (note.length > 110) note = `${note.slice(0, 107)}...`;
  const deferred = isDeferred(scenario) && !opts['include-deferred'];
  return { scenario, verdict: deferred ? 'deferred' : verdict, underlying: verdict, counts, note };
}

// ---------------------------------------------------------------------------------------
ensureInstalled(info, die);
const nodeVersion = spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout.trim();
if (!/^v(2[2-9]|[3-9]\d)\./.test(nodeVersion))
  die(`${relative(ROOT, NODE24)} is ${nodeVersion || 'not runnable'}; need >= 22`);
if (opts.target !== 'url') await buildFixture();

const summary = { node: nodeVersion, target: opts.target, versions: [], passed: 0, failed: 0, deferred: 0 };
for (const version of versions) {
  const suiteVersion = suiteVersionString(version);
  const listed = listServerScenarios(version);
  if (listed.error) {
    out(`\n${version} (${suiteVersion}): skipped: ${listed.error}`);
    summary.versions.push({ version, suiteVersion, skipped: listed.error });
    continue;
  }
  let expected = listed.names;
  if (opts.scenario.length > 0) {
    const missing = opts.scenario.filter((n) => !expected.includes(n));
    if (missing.length > 0)
      out(`\n${version} (${suiteVersion}): not in this suite version: ${missing.join(', ')}`);
    expected = opts.scenario.filter((n) => expected.includes(n));
    if (expected.length === 0) {
      summary.versions.push({ version, suiteVersion, skipped: `no scenario ${missing.join(', ')}` });
      continue;
    }
  }
  const base = join(RESULTS_ROOT, suiteVersion);
  const dirs = {
    results: join(base, 'results'),
    log: join(base, 'suite.log'),
    targetLog: join(base, 'target.log'),
  };
  rmSync(base, { recursive: true, force: true });
  mkdirSync(dirs.results, { recursive: true });

  // A fresh target per suite version: no state (toggled tools, tasks) leaks between versions.
  let target;
  try {
    target = await startTarget(dirs.targetLog);
  } catch (err) {
    die(err.message);
  }
  info(
    `${version} (${suiteVersion}): ${expected.length} scenario(s) against ${target.url}; log ${relative(ROOT, dirs.log)}`,
  );
  let run = { exitCode: 0, signal: null, timedOut: false, ms: 0 };
  for (const name of opts.scenario.length > 0 ? expected : [undefined]) {
    const r = await runSuite(version, target.url, dirs, name);
    run = {
      exitCode: run.exitCode || r.exitCode,
      signal: run.signal ?? r.signal,
      timedOut: run.timedOut || r.timedOut,
      ms: run.ms + r.ms,
    };
  }
  await target.stop();
  info(
    `${version}: suite exited ${run.signal ?? run.exitCode}${run.timedOut ? ' (timed out)' : ''} after ${(run.ms / 1000).toFixed(1)} s`,
  );

  const found = collectChecks(dirs.results);
  const rows = [...new Set([...expected, ...found.keys()])].map((n) => judge(n, found.get(n), run));
  const counted = rows.filter((r) => r.verdict !== 'deferred');
  const passed = counted.filter((r) => r.verdict === 'pass').length;
  const tally = (v) => counted.filter((r) => r.verdict === v).length;
  const entry = {
    version,
    suiteVersion,
    seconds: Math.round(run.ms / 100) / 10,
    suiteExit: run.signal ?? run.exitCode,
    timedOut: run.timedOut,
    passed,
    failed: counted.length - passed,
    failures: tally('fail'),
    warnings: tally('warn'),
    empty: tally('empty'),
    deferred: rows.length - counted.length,
    scenarios: rows,
  };
  summary.passed += passed;
  summary.failed += entry.failed;
  summary.deferred += entry.deferred;
  summary.versions.push(entry);
  out('');
  printTable(
    out,
    `== ${version}: @modelcontextprotocol/conformance ${suiteVersion} server (${entry.seconds} s) ==`,
    rows,
  );
  out(
    `${version}: ${passed} passed, ${entry.failed} not passed (${entry.failures} failed, ${entry.warnings} warned, ` +
      `${entry.empty} empty), ${entry.deferred} deferred${run.timedOut ? ', SUITE TIMED OUT' : ''}`,
  );
}

if (summary.versions.every((v) => v.skipped))
  die('nothing ran: no selected suite version has the selected scenario(s)');
mkdirSync(RESULTS_ROOT, { recursive: true });
writeFileSync(join(RESULTS_ROOT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
out('');
out(`${summary.passed} passed, ${summary.failed} not passed`);
process.exit(summary.failed > 0 ? 1 : 0);
