/**
 * The SSH example server's file tools against a real sshd on 127.0.0.1, each beside a baseline
 * measured in the same run: `grep_files` (files read over SFTP, matched in the server) against
 * `exec` running the host's own `grep -rn` on the same tree, and `read_file` of a large file
 * against `exec` with `head`. Prints medians and ratios. Needs Debian's openssh-server.
 *
 *   npm run bench:ssh [-- --files 2000 --runs 5]
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeWorld, startSshServer } from '../test/ssh/ssh-client.js';
import { missing, startSshd } from '../test/ssh/sshd-fixture.js';
import { fmt, median } from './stats.js';

const { values } = parseArgs({
  options: { files: { type: 'string', default: '2000' }, runs: { type: 'string', default: '5' } },
});
const fileCount = Number(values.files);
const runs = Number(values.runs);
if (missing()) {
  console.log(`bench:ssh skipped: ${missing()}`);
  process.exit(0);
}

const sshd = await startSshd({ withUser: false });
const world = await makeWorld(sshd.dir, sshd.clientKey);
const client = await startSshServer({
  env: { ...world.env, SSH_MCP_GREP_MAX_FILES: String(fileCount + 10) },
});
try {
  await client.call('add_alias', {
    name: 'me',
    host: '127.0.0.1',
    port: sshd.port,
    user: sshd.user,
    key_path: sshd.clientKey,
    accept_new_host_key: true,
  });
  const tree = join(world.remoteDir, 'tree');
  const line = 'const value = computeSomething(input, options); // a line of ordinary source text\n';
  for (let i = 0; i < fileCount; i++) {
    const dir = join(tree, `d${i % 50}`);
    if (i < 50) await mkdir(dir, { recursive: true });
    const body = line.repeat(120) + (i % 100 === 0 ? 'NEEDLE_FOUND here\n' : '');
    await writeFile(join(dir, `f${i}.ts`), body);
  }
  const big = join(world.remoteDir, 'big.log');
  await writeFile(big, line.repeat(60_000)); // ~5 MB
  const bytes = fileCount * line.length * 120;

  const time = async (run: () => Promise<{ isError: boolean; text: string }>) => {
    const samples: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      const started = performance.now();
      const result = await run();
      if (result.isError) throw new Error(result.text);
      if (i > 0) samples.push(performance.now() - started); // the first run warms the connection
    }
    return median(samples);
  };
  const grep = await time(() =>
    client.call('grep_files', { alias: 'me', pattern: 'NEEDLE_\\w+', path: tree }),
  );
  const remoteGrep = await time(() =>
    client.call('exec', { alias: 'me', command: `grep -rn 'NEEDLE_[A-Za-z]*' ${tree}` }),
  );
  const read = await time(() => client.call('read_file', { alias: 'me', path: big, limit: 2000 }));
  const readWhole = await time(() =>
    client.call('read_file', { alias: 'me', path: big, offset: 59_000, limit: 1000 }),
  );
  const head = await time(() =>
    client.call('exec', { alias: 'me', command: `head -n 2000 ${big} | cat -n` }),
  );

  console.log(
    `bench:ssh — ${fileCount} files (${fmt(bytes / 1024 ** 2, 1)} MiB), medians of ${runs} runs, 127.0.0.1`,
  );
  console.log(`  grep_files (SFTP + match here)      ${fmt(grep, 0)} ms`);
  console.log(
    `  exec grep -rn (baseline)            ${fmt(remoteGrep, 0)} ms   ratio ${fmt(grep / remoteGrep, 1)}x`,
  );
  console.log(`  read_file, first 2000 lines of 5 MB ${fmt(read, 0)} ms`);
  console.log(`  read_file, lines 59000-60000        ${fmt(readWhole, 0)} ms`);
  console.log(`  exec head -n 2000 | cat -n (base)   ${fmt(head, 0)} ms   ratio ${fmt(read / head, 1)}x`);
} catch (error) {
  console.error(`bench:ssh failed: ${(error as Error).message}\nserver stderr:\n${client.stderr()}`);
  process.exitCode = 1;
} finally {
  await client.close();
  await rm(world.remoteDir, { recursive: true, force: true });
  await sshd.stop();
}
