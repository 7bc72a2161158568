import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs an SSRF probe inside a network namespace of its own, where only loopback is up: an
 * address the guard lets through reaches nothing outside this process. The probe may put
 * extra addresses on that loopback (a "public" one, the metadata one) so that a connect the
 * guard should have refused lands on its own listener and is counted.
 *
 * `unshare -rn` needs unprivileged user namespaces; as root `unshare -n` is enough.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROBE = fileURLToPath(new URL('./ssrf-probe.ts', import.meta.url));
const SETUP = 'ip link set lo up && ip addr add 192.0.2.1/32 dev lo';

export interface NamespaceSupport {
  /** The `unshare` flags that work here, or undefined. */
  readonly flags?: readonly string[];
  /** Why namespaces cannot be used, when they cannot. */
  readonly reason?: string;
}

/** Whether a network namespace with a configurable loopback can be made on this machine. */
export function namespaceSupport(): NamespaceSupport {
  const candidates: string[][] = [['-rn']];
  if (process.getuid?.() === 0) candidates.push(['-n']);
  const failures: string[] = [];
  for (const flags of candidates) {
    const tried = spawnSync('unshare', [...flags, 'sh', '-c', SETUP], { encoding: 'utf8', timeout: 10_000 });
    if (tried.status === 0) return { flags };
    failures.push(
      `unshare ${flags.join(' ')}: ${(tried.stderr || tried.error?.message || `exit ${tried.status}`).trim()}`,
    );
  }
  return { reason: failures.join('; ') };
}

/** What a probe reports: one JSON document on stdout. */
export type ProbeReport = Record<string, unknown>;

/** Runs `scenario` of ssrf-probe.ts in a fresh namespace; rejects with its stderr when it fails. */
export function runProbe(
  flags: readonly string[],
  scenario: string,
  timeoutMs = 90_000,
): Promise<ProbeReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      [
        ...flags,
        'sh',
        '-c',
        'ip link set lo up && exec "$0" --import tsx "$1" "$2"',
        process.execPath,
        PROBE,
        scenario,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`probe ${scenario} ended with ${signal ?? `code ${code}`}:\n${stderr}\n${stdout}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ProbeReport);
      } catch {
        reject(new Error(`probe ${scenario} printed no report:\n${stdout}\n${stderr}`));
      }
    });
  });
}
