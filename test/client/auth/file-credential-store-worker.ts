/**
 * A second process for the file credential store tests. Modes:
 * - `write <dataDir> <issuer> <firstGeneration> <size>`: saves ever newer large credentials in
 *   a loop, printing `saved <generation>` after each, until killed (or 100 000 saves).
 * - `lock <dataDir> <issuer> <log> <rounds>`: prints `ready`, waits for a line on stdin, then
 *   `rounds` times takes the lock and appends `enter`/`exit` lines with times to `log`.
 */

import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { FileCredentialStore } from '../../../src/client/auth/file-credential-store.js';

const [mode, dataDir, issuer, ...rest] = process.argv.slice(2);
const store = new FileCredentialStore({ dataDir: dataDir! });
const now = () => performance.timeOrigin + performance.now();

if (mode === 'write') {
  const first = Number(rest[0]);
  const size = Number(rest[1]);
  for (let generation = first; generation < first + 100_000; generation++) {
    const blob = `g${generation}-`.padEnd(size, String.fromCharCode(97 + (generation % 26)));
    await store.save('big', issuer!, { discovery: { generation, blob } });
    process.stdout.write(`saved ${generation}\n`);
  }
} else if (mode === 'lock') {
  const log = rest[0]!;
  const rounds = Number(rest[1]);
  process.stdout.write('ready\n');
  await once(process.stdin, 'data');
  for (let round = 0; round < rounds; round++) {
    await store.withLock('shared', issuer!, async () => {
      appendFileSync(log, `enter ${process.pid} ${now()}\n`);
      // Hold the lock a while, so that a broken lock would show as overlapping intervals.
      await new Promise((resolve) => setTimeout(resolve, 15));
      appendFileSync(log, `exit ${process.pid} ${now()}\n`);
    });
  }
  process.stdout.write('done\n');
  process.stdin.destroy();
} else {
  throw new Error(`unknown mode ${mode}`);
}
