// Checks the commands the README shows, as a newcomer runs them: from this clone
// (`npx switchboard …`, which `npm install` links) and from the package as published — `npm pack`,
// the tarball installed into a temporary prefix, its `switchboard` command run for help, `list`
// and `start` (the demo servers connected, then stopped by SIGTERM, leaving none). Everything
// it starts listens on 127.0.0.1; the install fetches the package's dependencies from the
// registry. `npm run check:package`; CI runs it after the tests.
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = await mkdtemp(join(tmpdir(), 'sb-package-'));
const home = join(work, 'home');
const project = join(work, 'project');
await mkdir(home);
await mkdir(project);
// A fresh HOME (no user config), but npm's own cache where it was: no second download.
const env = {
  ...process.env,
  HOME: home,
  NO_COLOR: '1',
  CI: '1',
  npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
  npm_config_update_notifier: 'false',
};
delete env.FORCE_COLOR;

function step(text) {
  process.stderr.write(`check-package: ${text}\n`);
}

/** Runs a command to its end; fails the check unless it exits 0 and its output has `expect`. */
function run(command, args, { cwd = root, expect } = {}) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 600_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0 || (expect && !expect.test(output))) {
    throw new Error(
      `"${[command, ...args].join(' ')}" in ${cwd} exited ${result.status ?? result.signal}` +
        `${expect ? `, expected ${expect}` : ''}:\n${output.slice(-4000)}`,
    );
  }
  return output;
}

/** `switchboard start` until every demo server is connected, then SIGTERM: it must stop clean. */
async function startAndStop(bin, cwd) {
  const child = spawn(bin, ['start', '--port', '0', '--no-open', '--data-dir', join(work, 'data')], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const connected = await new Promise((resolve) => {
    // The filesystem demo server comes through npx on first use: allow for its download.
    const timer = setTimeout(() => resolve(false), 240_000);
    const check = () => {
      if (/All 3 demo servers are connected\./.test(output)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  child.kill('SIGTERM');
  const code = await exited;
  if (!connected || code !== 0 || !output.includes('Stopped.'))
    throw new Error(`"${bin} start" (connected: ${connected}, exit ${code}):\n${output.slice(-4000)}`);
}

try {
  step('from the clone: npx switchboard');
  run('npx', ['switchboard', '--help'], { expect: /usage: switchboard/ });
  run('npx', ['switchboard', '--config', project, 'list'], { expect: /No servers configured/ });

  step('npm pack');
  run('npm', ['pack', '--silent', '--pack-destination', work]);
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball.');
  const listing = run('tar', ['-tzf', join(work, tarball)]);
  for (const needed of [
    'package/bin/switchboard.js',
    'package/dist/cli/main.js',
    'package/dist/demo/switchboard.json',
  ])
    if (!listing.includes(needed)) throw new Error(`The package lacks ${needed}.`);

  step(`npm install -g ${tarball} into a temporary prefix`);
  const prefix = join(work, 'prefix');
  // Install scripts are skipped: the one dependency that has one, better-sqlite3, would fetch
  // or compile its native addon, which the clone's own install has just done for this very
  // Node and platform; it is copied over instead. The check is of this package, not of that.
  run('npm', [
    'install',
    '-g',
    '--prefix',
    prefix,
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    join(work, tarball),
  ]);
  const installed = join(prefix, 'lib', 'node_modules', 'mcp-switchboard', 'node_modules', 'better-sqlite3');
  await cp(join(root, 'node_modules', 'better-sqlite3', 'build'), join(installed, 'build'), {
    recursive: true,
  });
  const bin = join(prefix, 'bin', 'switchboard');

  step('the installed switchboard: --help, list, start');
  run(bin, ['--help'], { cwd: project, expect: /usage: switchboard/ });
  run(bin, ['list'], { cwd: project, expect: /No servers configured/ });
  await startAndStop(bin, project);
  step('ok');
} finally {
  await rm(work, { recursive: true, force: true });
}
