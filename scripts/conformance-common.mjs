// What both conformance runners (client and server mode) share: where the suite lives, its
// installation, process-group bookkeeping, and the verdict table. Plain Node ESM.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TOOLS = join(ROOT, 'tools', 'conformance');
export const NODE24_BIN_DIR = join(TOOLS, 'node_modules', 'node', 'bin');
export const NODE24 = join(NODE24_BIN_DIR, 'node');
export const PRELOAD = join(TOOLS, 'loopback-preload.mjs');
export const SUITES = { stable: { pkg: 'conformance-stable' }, next: { pkg: 'conformance-next' } };

/**
 * Process-group bookkeeping: every suite run (and a server target) is its own detached group,
 * holding everything it launches; all are SIGKILLed at exit and on SIGINT/SIGTERM/SIGHUP.
 */
export function processGroups(info) {
  const liveGroups = new Set();
  const killGroup = (pid, signal) => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false; // ESRCH: the group is gone
    }
  };
  const killAllGroups = () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      info(`${sig}: killing process groups`);
      killAllGroups();
      process.exit(130);
    });
  }
  process.on('exit', killAllGroups);
  return { liveGroups, killGroup, killAllGroups };
}

/** Installs tools/conformance (Node 24 and both suite versions) when anything is missing. */
export function ensureInstalled(info, die) {
  const needed = [
    NODE24,
    ...Object.values(SUITES).map((s) => join(TOOLS, 'node_modules', s.pkg, 'package.json')),
  ];
  if (needed.every((p) => existsSync(p))) return;
  info('tools/conformance not installed: npm ci --prefix tools/conformance');
  const r = spawnSync('npm', ['ci', '--prefix', TOOLS, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) die('npm ci --prefix tools/conformance failed');
  for (const p of needed) if (!existsSync(p)) die(`still missing after npm ci: ${relative(ROOT, p)}`);
}

/** One verdict table: scenario, verdict, check counts, note. */
export function printTable(out, title, rows) {
  const headers = ['scenario', 'verdict', 'SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED', 'note'];
  const cells = rows.map((r) => [
    r.scenario,
    r.verdict === 'deferred' ? `deferred(${r.underlying})` : r.verdict,
    ...['SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED'].map((k) => String(r.counts[k])),
    r.note,
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const fmt = (row) =>
    row
      .map((c, i) =>
        i >= 2 && i <= 5 ? c.padStart(widths[i]) : i === row.length - 1 ? c : c.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  out(title);
  out(fmt(headers));
  out(fmt(widths.map((w) => '-'.repeat(w))));
  for (const c of cells) out(fmt(c));
}
