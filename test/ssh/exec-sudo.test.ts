import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Answerer } from './ssh-client.js';
import { SUDO } from './sshd-fixture.js';
import { sshSuite } from './suite.js';

/**
 * Commands against a real sshd: exit status and output, the output cap, the time limit (the
 * remote command really killed), the size limits on commands and stdin, and sudo's three modes
 * — `none` refused, `nopasswd` running at once or failing fast, `prompt` asking for the
 * password (checked, remembered, asked again after a refusal).
 */
const suite = sshSuite();
const server = (env: Record<string, string> = {}, answer?: Answerer) =>
  suite.setup({ env, ...(answer && { answer }), me: { sudo_method: 'nopasswd' } });

describe('exec', () => {
  it('reports exit status, stdout and stderr, and feeds stdin', async () => {
    const { client } = await server();
    const result = await client.call('exec', {
      alias: 'me',
      command: 'cat; echo oops >&2; exit 3',
      stdin: 'from stdin\n',
    });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({
      exit_code: 3,
      stdout: 'from stdin\n',
      stderr: 'oops\n',
      timed_out: false,
    });
    expect(result.text).toContain('Exit status: 3');
  });

  it('keeps at most SSH_MCP_OUTPUT_MAX bytes of each stream and says how much it dropped', async () => {
    const { client } = await server({ SSH_MCP_OUTPUT_MAX: '1024' });
    const result = await client.call('exec', { alias: 'me', command: 'head -c 5000 /dev/zero | tr "\\0" a' });
    expect(result.structured?.stdout).toBe('a'.repeat(1024));
    expect(result.structured?.stdout_dropped_bytes).toBe(5000 - 1024);
    expect(result.text).toContain('[3976 more bytes of stdout not kept]');
  });

  it('kills a command that runs past timeout_seconds', async () => {
    const { client, world } = await server();
    const pidFile = `${world.remoteDir}/pid`;
    try {
      const result = await client.call('exec', {
        alias: 'me',
        command: `echo $$ > ${pidFile}; exec sleep 300`,
        timeout_seconds: 1,
      });
      expect(result.isError).toBe(true);
      expect(result.structured?.timed_out).toBe(true);
      // The remote process is gone, not left running.
      const check = await client.call('exec', {
        alias: 'me',
        command: `for i in $(seq 50); do kill -0 $(cat ${pidFile}) 2>/dev/null || { echo gone; exit 0; }; sleep 0.2; done; echo alive`,
      });
      expect(check.structured?.stdout).toBe('gone\n');
    } finally {
      // The "remote" host is this machine: should the kill have failed, end the sleep here.
      const pid = Number(await readFile(pidFile, 'utf8').catch(() => ''));
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone, as it should be.
        }
      }
    }
  });

  it('refuses a timeout above the ceiling, and a command or stdin above their limits, before connecting', async () => {
    const { client } = await server({ SSH_MCP_EXEC_TIMEOUT_MAX: '5', SSH_MCP_EXEC_TIMEOUT: '2' });
    const long = await client.call('exec', { alias: 'me', command: 'true', timeout_seconds: 6 });
    expect(long.structured?.error).toBe('LIMIT');
    const big = await client.call('exec', { alias: 'me', command: `echo ${'x'.repeat(70_000)}` });
    expect(big.structured?.error).toBe('LIMIT');
    const input = await client.call('exec', {
      alias: 'me',
      command: 'wc -c',
      stdin: 'y'.repeat(1024 * 1024 + 1),
    });
    expect(input.structured?.error).toBe('LIMIT');
  });
});

describe('sudo', () => {
  it('refuses sudo when the alias says "none", running nothing', async () => {
    const { client, add, world } = await server();
    const { sshd } = suite;
    await add('nosudo', { user: sshd.user, key_path: sshd.clientKey, sudo_method: 'none' });
    const result = await client.call('exec', {
      alias: 'nosudo',
      command: `touch ${world.remoteDir}/ran`,
      sudo: true,
    });
    expect(result.structured?.error).toBe('SUDO_REFUSED');
    expect(
      (await client.call('exec', { alias: 'me', command: `test -e ${world.remoteDir}/ran; echo $?` }))
        .structured?.stdout,
    ).toBe('1\n');
  });

  it('runs "nopasswd" sudo at once where no password is needed', async (ctx) => {
    if (SUDO === undefined) return ctx.skip('sudo is not installed here (apt-get install sudo)');
    const { client } = await server();
    const result = await client.call('exec', { alias: 'me', command: 'id -un', sudo: true });
    expect(result.isError, result.text).toBe(false);
    expect(result.structured?.stdout).toBe('root\n');
  });

  it('fails "nopasswd" fast, without asking, where sudo wants a password', async (ctx) => {
    if (SUDO === undefined) return ctx.skip('sudo is not installed here (apt-get install sudo)');
    const { sshd } = suite;
    if (sshd.testUser === undefined) return ctx.skip(`no user with a password: ${sshd.noTestUser}`);
    const user = sshd.testUser;
    const { client, add } = await server({}, () => ({
      action: 'accept',
      content: { password: user.password },
    }));
    await add('np', { user: user.name, auth: 'password', sudo_method: 'nopasswd' });
    const result = await client.call('exec', { alias: 'np', command: 'id -un', sudo: true });
    expect(result.structured?.error, result.text).toBe('SUDO_REFUSED');
    expect(result.text).toContain('NOPASSWD');
    expect(client.asked.map((a) => a.message.startsWith('sudo'))).toEqual([false]); // only the login password
  });

  it('asks for the sudo password in "prompt" mode, checks it, remembers it, and asks again after a refusal', async (ctx) => {
    if (SUDO === undefined) return ctx.skip('sudo is not installed here (apt-get install sudo)');
    const { sshd } = suite;
    if (sshd.testUser === undefined) return ctx.skip(`no user with a password: ${sshd.noTestUser}`);
    const user = sshd.testUser;
    let sudoPassword = 'not-it';
    const { client, add, world } = await server({}, (a) =>
      a.message.startsWith('sudo')
        ? { action: 'accept', content: { password: sudoPassword } }
        : { action: 'accept', content: { password: user.password } },
    );
    await add('pr', { user: user.name, auth: 'password', sudo_method: 'prompt' });
    const wrong = await client.call('exec', {
      alias: 'pr',
      command: `touch ${world.remoteDir}/wrong`,
      sudo: true,
    });
    expect(wrong.structured?.error, wrong.text).toBe('SUDO_REFUSED');
    expect(client.asked.map((a) => a.fields)).toEqual([['password'], ['password']]);
    const ran = await client.call('exec', {
      alias: 'pr',
      command: `test -e ${world.remoteDir}/wrong; echo $?`,
    });
    expect(ran.structured?.stdout).toBe('1\n');

    sudoPassword = user.password;
    const ok = await client.call('exec', {
      alias: 'pr',
      command: 'id -un; cat',
      sudo: true,
      stdin: 'the command input\n',
    });
    expect(ok.isError, ok.text).toBe(false);
    // The password went to sudo, the rest of stdin to the command.
    expect(ok.structured?.stdout).toBe('root\nthe command input\n');
    expect(client.asked).toHaveLength(3);
    const again = await client.call('exec', {
      alias: 'pr',
      command: 'id -un',
      sudo: true,
      sudo_user: user.name,
    });
    expect(again.structured?.stdout).toBe(`${user.name}\n`);
    expect(client.asked).toHaveLength(3);
    expect(client.stderr()).not.toContain(user.password);
  });
});
