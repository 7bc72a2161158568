/**
 * CLI start-up benchmark: what a one-shot `switchboard` command costs, against `node -e ''`
 * measured in the same run (the floor: starting Node itself). Each sample is a fresh process,
 * the targets alternate round by round, and the figures are medians. Measured:
 *   - `--help` (goal ≤ 150 ms),
 *   - `list` with nothing configured (goal ≤ 300 ms),
 *   - `call kitchen.echo` answered by a running gateway (`serve` on the same data dir), beside
 *     the same call made straight to that gateway's API from this process, warm (the call's
 *     own time: upstream plus gateway); goal: the CLI within 100 ms of it,
 *   - the same call with --local, which starts the server itself (what every call cost before).
 * Runs the built CLI (dist/cli/main.js, `npm run build`), or the sources through tsx with
 * `--cli tsx` (or when nothing is built). Beside it, `--help` and the gateway call through
 * bin/switchboard.js, the command `npx switchboard` runs in a clone (dist/ while it is current,
 * else the sources through tsx).
 *
 *   npm run bench:cli [-- --rounds 15 --cli dist|tsx]
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildFixtures } from '../test/fixtures/build.js';
import { kitchenSinkBin } from '../test/fixtures/paths.js';
import { fmt, median } from './stats.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const ROUNDS = Number(args.get('rounds') ?? 15);
const repo = fileURLToPath(new URL('..', import.meta.url));
const built = join(repo, 'dist/cli/main.js');
const useTsx = args.get('cli') === 'tsx' || !existsSync(built);
const cli = useTsx ? ['--import', 'tsx', join(repo, 'src/cli/main.ts')] : [built];
const bin = [join(repo, 'bin/switchboard.js')];

/** Runs node with `argv` to its end; its wall time in ms (exit code checked). */
function timed(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...argv], { env, maxBuffer: 1 << 24 }, (error, _out, err) => {
      if (error) reject(new Error(`${argv.join(' ')}: ${error.message}\n${err}`));
      else resolve(performance.now() - start);
    });
  });
}

const root = await mkdtemp(join(tmpdir(), 'sb-bench-cli-'));
const home = join(root, 'home');
const empty = join(root, 'empty');
const project = join(root, 'project');
const data = join(root, 'data');
await Promise.all([home, empty, project].map((d) => mkdir(d, { recursive: true })));
await buildFixtures();
await writeFile(
  join(project, 'switchboard.json'),
  JSON.stringify({
    servers: {
      kitchen: {
        command: process.execPath,
        args: [kitchenSinkBin, '--transport', 'stdio'],
        trust: 'trusted',
      },
    },
    governance: { mode: 'full-auto' },
  }),
);
const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, NO_COLOR: '1' };
const inProject = ['--config', project, '--data-dir', data];

const gateway = spawn(process.execPath, [...cli, ...inProject, '--json', '--quiet', 'serve', '--port', '0'], {
  env,
  stdio: ['ignore', 'pipe', 'ignore'],
});
const listening = await new Promise<string>((resolve, reject) => {
  createInterface({ input: gateway.stdout! }).once('line', (line) => resolve(line));
  gateway.once('exit', (code) => reject(new Error(`serve exited (${code})`)));
});
const origin = new URL((JSON.parse(listening) as { listening: string }).listening).origin;
const token = (await readFile(join(data, 'local-token'), 'utf8')).trim();

/** The call made straight to the gateway's API: the call's own time, as the CLI's floor. */
async function apiCall(): Promise<number> {
  const start = performance.now();
  const res = await fetch(`${origin}/api/tools/mcp__kitchen__echo/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ arguments: { text: 'hi' } }),
  });
  if (!res.ok) throw new Error(`API call: ${res.status} ${await res.text()}`);
  await res.json();
  return performance.now() - start;
}

/** Until the gateway's server is connected (bounded: a minute). */
async function connected(): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const res = await fetch(`${origin}/api/servers`, { headers: { authorization: `Bearer ${token}` } });
    const { servers } = (await res.json()) as { servers: { state: string }[] };
    if (servers[0]?.state === 'connected') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the gateway never connected its server');
}

const targets: Record<string, () => Promise<number>> = {
  "node -e ''": () => timed(['-e', ''], env),
  '--help': () => timed([...cli, '--help'], env),
  'list (nothing configured)': () =>
    timed([...cli, '--config', empty, '--data-dir', join(root, 'none'), 'list'], env),
  'API call (in process, warm)': apiCall,
  'call via the gateway': () => timed([...cli, ...inProject, 'call', 'kitchen.echo', 'text=hi'], env),
  '--help (bin, as npx runs it)': () => timed([...bin, '--help'], env),
  'call via the gateway (bin)': () => timed([...bin, ...inProject, 'call', 'kitchen.echo', 'text=hi'], env),
  'call --local (starts the server)': () =>
    timed([...cli, ...inProject, '--local', 'call', 'kitchen.echo', 'text=hi'], env),
};
const samples = new Map<string, number[]>(Object.keys(targets).map((k) => [k, []]));
try {
  await connected();
  for (let i = 0; i < 3; i++) await apiCall();
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, run] of Object.entries(targets)) samples.get(name)!.push(await run());
} finally {
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  await rm(root, { recursive: true, force: true });
}

const m = (name: string) => median(samples.get(name)!);
const floor = m("node -e ''");
console.log(`switchboard CLI (${useTsx ? 'sources via tsx' : 'dist'}), ${ROUNDS} rounds, medians`);
for (const name of samples.keys())
  console.log(`  ${name.padEnd(34)} ${fmt(m(name), 1).padStart(8)} ms   ${fmt(m(name) / floor)}× node -e ''`);
const over = m('call via the gateway') - m('API call (in process, warm)');
console.log('goals:');
console.log(`  --help ≤ 150 ms                         ${fmt(m('--help'), 1)} ms`);
console.log(`  list, nothing configured ≤ 300 ms       ${fmt(m('list (nothing configured)'), 1)} ms`);
console.log(`  call via gateway ≤ 100 ms over the call ${fmt(over, 1)} ms over`);
// Node's own start is in every figure above; on a slow or loaded machine it alone can pass
// 100 ms, so the CLI's own share is shown apart from it.
console.log(
  `    of which Node's own start             ${fmt(floor, 1)} ms; the CLI's own ${fmt(over - floor, 1)} ms`,
);
