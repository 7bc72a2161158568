import { execFileSync } from 'node:child_process';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Answerer, makeWorld, type SshClient, startSshServer } from './ssh-client.js';
import { type Sshd, startSshd } from './sshd-fixture.js';

/**
 * Logging in against a real sshd: key login with the first-use host-key decision (accepted,
 * declined, or made in advance by the alias), a changed host key refused, aliases in a 0600
 * file, password login through elicitation, and the pool's lifetime.
 */
let sshd: Sshd;
const clients: SshClient[] = [];

beforeAll(async () => {
  sshd = await startSshd();
});
afterAll(async () => {
  await sshd?.stop();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

async function server(env: Record<string, string>, answer?: Answerer, era?: 'legacy' | 'auto') {
  const client = await startSshServer({ env, ...(answer && { answer }), ...(era && { era }) });
  clients.push(client);
  return client;
}

const target = () => `${sshd.user}@127.0.0.1:${sshd.port}`;
const fingerprintOf = (pub: string) =>
  execFileSync('ssh-keygen', ['-lf', '-'], { input: pub }).toString().split(' ')[1]!;
const trust =
  (yes: boolean): Answerer =>
  (a) =>
    a.fields.includes('trust') ? { action: 'accept', content: { trust: yes } } : { action: 'decline' };

describe('host keys', () => {
  for (const era of ['legacy', 'auto'] as const)
    it(`asks on first use with the host's real fingerprint, records the key, and does not ask again (${era})`, async () => {
      const world = await makeWorld(sshd.dir, sshd.clientKey);
      const first = await server(world.env, trust(true), era);
      const result = await first.call('exec', { alias: target(), command: 'echo hello; id -un' });
      expect(result.isError, result.text).toBe(false);
      expect(result.structured?.stdout).toBe(`hello\n${sshd.user}\n`);
      expect(first.asked).toHaveLength(1);
      expect(first.asked[0]!.message).toContain(fingerprintOf(sshd.hostKeyPublic));
      expect(first.asked[0]!.message).toContain(`[127.0.0.1]:${sshd.port}`);
      const recorded = await readFile(world.knownHosts, 'utf8');
      expect(recorded.trim()).toBe(
        `[127.0.0.1]:${sshd.port} ${sshd.hostKeyPublic.split(' ').slice(0, 2).join(' ')}`,
      );
      // ssh itself accepts what was written: the file is in OpenSSH's format.
      expect(
        execFileSync('ssh-keygen', ['-F', `[127.0.0.1]:${sshd.port}`, '-f', world.knownHosts]).toString(),
      ).toContain('ssh-ed25519');

      const again = await server(world.env, trust(false), era);
      const second = await again.call('exec', { alias: target(), command: 'true' });
      expect(second.isError, second.text).toBe(false);
      expect(again.asked).toEqual([]);
    });

  it('refuses when the person does not trust the key, and records nothing', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const client = await server(world.env, trust(false));
    const result = await client.call('exec', { alias: target(), command: 'touch should-not-exist' });
    expect(result.isError).toBe(true);
    expect(result.structured?.error).toBe('HOST_KEY_UNKNOWN');
    expect(client.asked).toHaveLength(1);
    await expect(stat(world.knownHosts)).rejects.toThrow();
  });

  it('gives up on a question nobody answers after SSH_MCP_ASK_TIMEOUT, recording nothing', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey, { SSH_MCP_ASK_TIMEOUT: '1' });
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const client = await server(world.env, () => {
      asked();
      return new Promise(() => undefined); // the person walked away
    });
    const result = await client.call('connect', { alias: target() });
    await wasAsked;
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/timed out/i);
    await expect(stat(world.knownHosts)).rejects.toThrow();
  });

  it('refuses an unknown host when the client cannot be asked', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const client = await server(world.env);
    const result = await client.call('connect', { alias: target() });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('host_key');
    await expect(stat(world.knownHosts)).rejects.toThrow();
  });

  it('refuses a host whose key differs from known_hosts, without asking, naming both keys', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const other = join(world.home, 'other');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const otherPub = await readFile(`${other}.pub`, 'utf8');
    await writeFile(
      world.knownHosts,
      `[127.0.0.1]:${sshd.port} ${otherPub.split(' ').slice(0, 2).join(' ')}\n`,
    );
    const before = sshd.logLength();
    const client = await server(world.env, trust(true));
    const result = await client.call('exec', { alias: target(), command: 'true' });
    expect(result.isError).toBe(true);
    expect(result.structured?.error).toBe('HOST_KEY_MISMATCH');
    expect(result.text).toContain(fingerprintOf(sshd.hostKeyPublic));
    expect(result.text).toContain(fingerprintOf(otherPub));
    expect(client.asked).toEqual([]);
    // No key was offered: the client hung up during the key exchange, before authentication.
    await sshd.waitForLog(/Disconnected from .* \[preauth\]/, { from: before });
    expect(sshd.logSince(before)).not.toMatch(/Accepted|Failed|publickey|Postponed/);
  });

  it('takes the key on first use without asking when the alias was added with accept_new_host_key', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const client = await server(world.env, trust(false));
    const added = await client.call('add_alias', {
      name: 'box',
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      key_path: sshd.clientKey,
      accept_new_host_key: true,
    });
    expect(added.isError, added.text).toBe(false);
    const result = await client.call('connect', { alias: 'box' });
    expect(result.isError, result.text).toBe(false);
    expect(client.asked).toEqual([]);
    expect(await readFile(world.knownHosts, 'utf8')).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519`);
  });
});

describe('aliases', () => {
  it('keeps aliases in a 0600 file without secrets, lists and removes them, and refuses a file others can read', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const client = await server(world.env, trust(true));
    await client.call('add_alias', {
      name: 'web-1',
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      auth: 'password',
      sudo_method: 'nopasswd',
    });
    expect((await stat(world.aliases)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(world.aliases, 'utf8'));
    expect(stored.aliases['web-1']).toEqual({
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      auth: 'password',
      sudo: { method: 'nopasswd' },
      accept_new_host_key: false,
    });
    const listed = await client.call('list_aliases', {});
    expect(listed.text).toContain(`web-1: ${sshd.user}@127.0.0.1:${sshd.port} auth=password sudo=nopasswd`);
    const bad = await client.call('add_alias', { name: '../x', host: '127.0.0.1', user: 'me' });
    expect(bad.structured?.error).toBe('INVALID_ARGUMENT');
    const unknown = await client.call('connect', { alias: 'nope' });
    expect(unknown.structured?.error).toBe('UNKNOWN_ALIAS');
    expect(unknown.text).toContain('web-1');

    execFileSync('chmod', ['644', world.aliases]);
    const refused = await client.call('list_aliases', {});
    expect(refused.structured?.error).toBe('ALIASES_FILE');
    expect(refused.text).toContain('chmod 600');
    execFileSync('chmod', ['600', world.aliases]);
    expect((await client.call('remove_alias', { name: 'web-1' })).text).toBe('Removed alias web-1.');
    expect(JSON.parse(await readFile(world.aliases, 'utf8'))).toEqual({ aliases: {} });
  });
});

describe('password login through elicitation', () => {
  it('asks for the password in a secret field, logs in, remembers it, and asks again after a refusal', async (ctx) => {
    if (sshd.testUser === undefined) {
      ctx.skip(`no password login to test: ${sshd.noTestUser}`);
      return;
    }
    const user = sshd.testUser;
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    let password = 'wrong-password';
    const client = await server(world.env, (a) =>
      a.fields.includes('password') ? { action: 'accept', content: { password } } : { action: 'decline' },
    );
    await client.call('add_alias', {
      name: 'pw',
      host: '127.0.0.1',
      port: sshd.port,
      user: user.name,
      auth: 'password',
      accept_new_host_key: true,
    });

    const refused = await client.call('exec', { alias: 'pw', command: 'id -un' });
    expect(refused.structured?.error, refused.text).toBe('AUTH_FAILED');
    expect(client.asked.map((a) => a.fields)).toEqual([['password']]);

    password = user.password;
    const before = sshd.logLength();
    const ok = await client.call('exec', { alias: 'pw', command: 'id -un' });
    expect(ok.isError, ok.text).toBe(false);
    expect(ok.structured?.stdout).toBe(`${user.name}\n`);
    expect(client.asked).toHaveLength(2);
    expect(await sshd.waitForLog(/Accepted password for/, { from: before })).toContain(user.name);
    // Never logged, never in a result, never in the aliases file.
    expect(client.stderr()).not.toContain(user.password);
    expect(ok.text).not.toContain(user.password);
    expect(await readFile(world.aliases, 'utf8')).not.toContain(user.password);

    // Pooled: a new call neither asks nor logs in again.
    await client.call('exec', { alias: 'pw', command: 'true' });
    expect(client.asked).toHaveLength(2);
    // After disconnect the remembered password is gone with the connection: asked again.
    await client.call('disconnect', { alias: 'pw' });
    const third = await client.call('exec', { alias: 'pw', command: 'true' });
    expect(third.isError, third.text).toBe(false);
    expect(client.asked).toHaveLength(3);
  });
});

describe('order of questions', () => {
  it('settles the host key before asking for a password, and asks nothing more once the host is refused', async (ctx) => {
    if (sshd.testUser === undefined) return ctx.skip(`no password login to test: ${sshd.noTestUser}`);
    const user = sshd.testUser;
    for (const trusted of [false, true]) {
      const world = await makeWorld(sshd.dir, sshd.clientKey);
      const client = await server(world.env, (a) =>
        a.fields.includes('trust')
          ? { action: 'accept', content: { trust: trusted } }
          : { action: 'accept', content: { password: user.password } },
      );
      await client.call('add_alias', {
        name: 'pw',
        host: '127.0.0.1',
        port: sshd.port,
        user: user.name,
        auth: 'password',
      });
      const result = await client.call('exec', { alias: 'pw', command: 'id -un' });
      if (trusted) {
        expect(result.structured?.stdout, result.text).toBe(`${user.name}\n`);
        expect(client.asked.map((a) => a.fields)).toEqual([['trust'], ['password']]);
      } else {
        expect(result.structured?.error, result.text).toBe('HOST_KEY_UNKNOWN');
        expect(client.asked.map((a) => a.fields)).toEqual([['trust']]);
      }
    }
  });
});

describe('pool and secret lifetimes', () => {
  it('closes an idle connection after SSH_MCP_POOL_TTL and asks for the password again after SSH_MCP_LOGIN_PW_TTL', async (ctx) => {
    if (sshd.testUser === undefined) {
      ctx.skip(`no password login to test: ${sshd.noTestUser}`);
      return;
    }
    const user = sshd.testUser;
    const world = await makeWorld(sshd.dir, sshd.clientKey, {
      SSH_MCP_POOL_TTL: '1',
      SSH_MCP_LOGIN_PW_TTL: '1',
    });
    const client = await server(world.env, (a) =>
      a.fields.includes('password')
        ? { action: 'accept', content: { password: user.password } }
        : { action: 'decline' },
    );
    await client.call('add_alias', {
      name: 'pw',
      host: '127.0.0.1',
      port: sshd.port,
      user: user.name,
      auth: 'password',
      accept_new_host_key: true,
    });
    const from = sshd.logLength();
    expect((await client.call('connect', { alias: 'pw' })).isError).toBe(false);
    await sshd.waitForLog(/Accepted password/, { from });
    // The pool closes it on its own once idle for 1 s: sshd sees that user's session end.
    await sshd.waitForLog(new RegExp(`Disconnected from user ${user.name}`), { from });
    expect((await client.call('list_aliases', {})).text).not.toContain('(connected)');
    const again = await client.call('exec', { alias: 'pw', command: 'true' });
    expect(again.isError, again.text).toBe(false);
    expect(client.asked).toHaveLength(2);
  });
});

describe('encrypted keys', () => {
  it('asks for the passphrase only because the key is encrypted, refuses a wrong one locally, and takes SSH_MCP_KEY_PASSPHRASE without asking', async () => {
    const world = await makeWorld(sshd.dir, sshd.clientKey);
    const key = join(world.home, 'locked');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'open sesame', '-f', key]);
    await appendFile(join(sshd.dir, 'authorized', sshd.user), await readFile(`${key}.pub`));
    let passphrase = 'wrong';
    const client = await server(world.env, (a) =>
      a.fields.includes('passphrase') ? { action: 'accept', content: { passphrase } } : { action: 'decline' },
    );
    await client.call('add_alias', {
      name: 'locked',
      host: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      key_path: key,
      accept_new_host_key: true,
    });
    const before = sshd.logLength();
    const wrong = await client.call('connect', { alias: 'locked' });
    expect(wrong.structured?.error, wrong.text).toBe('AUTH_FAILED');
    expect(wrong.text).toContain('passphrase');
    // Checked here: the key was never offered to the server.
    expect(sshd.logSince(before)).not.toMatch(/Accepted key|Failed publickey/);
    passphrase = 'open sesame';
    const ok = await client.call('exec', { alias: 'locked', command: 'echo in' });
    expect(ok.structured?.stdout, ok.text).toBe('in\n');
    expect(client.asked.map((a) => a.fields)).toEqual([['passphrase'], ['passphrase']]);
    expect(await sshd.waitForLog(/Accepted publickey/, { from: before })).toContain(
      fingerprintOf(await readFile(`${key}.pub`, 'utf8')),
    );

    const fromEnv = await server({ ...world.env, SSH_MCP_KEY_PASSPHRASE: 'open sesame' }, trust(false));
    const quiet = await fromEnv.call('exec', { alias: 'locked', command: 'true' });
    expect(quiet.isError, quiet.text).toBe(false);
    expect(fromEnv.asked).toEqual([]);
  });
});

describe('connect timeout', () => {
  it('gives up on a host that accepts TCP but never speaks SSH, after SSH_MCP_CONNECT_TIMEOUT', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume(); // read (and drop) what arrives, so its end is seen
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const world = await makeWorld(sshd.dir, sshd.clientKey, { SSH_MCP_CONNECT_TIMEOUT: '1' });
      const client = await server(world.env, trust(true));
      const result = await client.call('connect', { alias: `me@127.0.0.1:${port}` });
      expect(result.structured?.error, result.text).toBe('TIMEOUT');
      expect(sockets.length).toBeGreaterThan(0);
      // The server let go of the socket it had opened.
      await Promise.all(
        sockets.map((s) => (s.closed ? undefined : new Promise((resolve) => s.once('close', resolve)))),
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
