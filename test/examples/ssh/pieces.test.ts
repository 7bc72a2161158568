import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AliasStore, parseTarget } from '../../../examples/servers/ssh/aliases.js';
import { shellQuote, sudoCommand, withDeadline } from '../../../examples/servers/ssh/command-line.js';
import { existingLocal, writableLocal } from '../../../examples/servers/ssh/local-root.js';
import { ConnectionPool } from '../../../examples/servers/ssh/pool.js';
import { keyIsEncrypted, keyParses, passphraseOpens } from '../../../examples/servers/ssh/private-key.js';
import { SecretCache } from '../../../examples/servers/ssh/secret-cache.js';
import { readSettings } from '../../../examples/servers/ssh/settings.js';
import { landingPath, safeEntryName, sourceName } from '../../../examples/servers/ssh/transfer-paths.js';

/** The SSH server's pure pieces and its local files, without any SSH connection. */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-ssh-pieces-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('settings', () => {
  it('gives the documented lifetimes and limits, and refuses a malformed value by name', () => {
    const s = readSettings({ HOME: '/home/x' });
    expect([s.poolTtlMs, s.loginSecretTtlMs, s.sudoSecretTtlMs]).toEqual([300_000, 300_000, 300_000]);
    expect(s.aliasesFile).toBe('/home/x/.config/switchboard/ssh-aliases.json');
    expect(s.knownHostsFile).toBe('/home/x/.ssh/known_hosts');
    expect(readSettings({ HOME: '/h', SSH_MCP_POOL_TTL: '7' }).poolTtlMs).toBe(7000);
    expect(() => readSettings({ SSH_MCP_SUDO_PW_TTL: '5m' })).toThrow(/SSH_MCP_SUDO_PW_TTL="5m"/);
    expect(() => readSettings({ SSH_MCP_EXEC_TIMEOUT: '700', SSH_MCP_EXEC_TIMEOUT_MAX: '600' })).toThrow(
      /EXEC_TIMEOUT_MAX/,
    );
  });
});

describe('secret cache and pool lifetimes', () => {
  it('forgets a secret its lifetime after it was given, not extended by reads', () => {
    let now = 0;
    const cache = new SecretCache(300_000, () => now);
    cache.set('sudo a', 'pw');
    now = 299_999;
    expect(cache.get('sudo a')).toBe('pw');
    now = 300_000;
    expect(cache.get('sudo a')).toBeUndefined();
    expect(cache.size).toBe(0);
    cache.set('x', 'y');
    cache.drop('x');
    expect(cache.get('x')).toBeUndefined();
  });

  it('closes a connection idle for the lifetime, keeps a used one, drops dead ones, and holds at most max', () => {
    let now = 0;
    const closed: string[] = [];
    const conn = (name: string) => ({ alive: true, busy: false, close: () => closed.push(name) });
    const pool = new ConnectionPool<ReturnType<typeof conn>>({ ttlMs: 1000, max: 2, now: () => now });
    pool.put('a', conn('a'));
    pool.put('b', conn('b'));
    expect(() => pool.ensureRoom('c')).toThrow(expect.objectContaining({ code: 'LIMIT' }));
    expect(() => pool.ensureRoom('a')).not.toThrow();
    now = 900;
    expect(pool.take('a')).toBeDefined();
    now = 1000;
    expect(pool.take('b')).toBeUndefined();
    expect(closed).toEqual(['b']);
    now = 1899;
    expect(pool.take('a')).toBeDefined();
    const dead = { alive: false, busy: false, close: () => closed.push('dead') };
    pool.put('d', dead);
    expect(pool.list().map((c) => c.key)).toEqual(['a']);
    // A connection running a long command is not idle, however long the command takes; its
    // idle time starts when the command ends.
    const long = conn('long');
    pool.put('long', long);
    long.busy = true;
    now = 10_000;
    expect(pool.take('long')).toBe(long);
    long.busy = false;
    now = 10_999;
    pool.evict();
    expect(pool.list().map((c) => c.key)).toEqual(['long']);
    now = 11_000;
    pool.evict();
    expect(closed).toContain('long');
    expect(pool.closeAll()).toEqual([]);
  });
});

describe('pool races', () => {
  it('keeps the live pooled connection when a second one for the same target arrives, and closes one that has no room', () => {
    const closed: string[] = [];
    const conn = (name: string) => ({ alive: true, busy: false, close: () => closed.push(name) });
    const pool = new ConnectionPool<ReturnType<typeof conn>>({ ttlMs: 1000, max: 1, now: () => 0 });
    const first = conn('first');
    expect(pool.put('a', first)).toBe(first);
    // Two calls dialled at once: the first may be running a command, so the second gives way.
    expect(pool.put('a', conn('second'))).toBe(first);
    expect(closed).toEqual(['second']);
    expect(() => pool.put('b', conn('third'))).toThrow(expect.objectContaining({ code: 'LIMIT' }));
    expect(closed).toEqual(['second', 'third']);
    expect(pool.take('a')).toBe(first);
  });
});

describe('command lines', () => {
  it('quotes any string so sh reads it back unchanged', () => {
    for (const value of ["it's", '$(id) `id` $HOME', 'a\nb', '"; rm -rf / #', '']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(value)}`]).toString()).toBe(value);
    }
  });

  it('runs the command under timeout inside sudo, and sh runs the nested quoting as written', () => {
    const line = sudoCommand(withDeadline('echo \'a b\' "$0"', 5), 'root', 'nopasswd');
    expect(line.startsWith("sudo -n -u 'root' -- sh -c ")).toBe(true);
    expect(sudoCommand('x', 'root', 'password').startsWith("sudo -S -k -p '' -u 'root'")).toBe(true);
    // Strip sudo and run the rest: the command comes out as given.
    const inner = line.slice("sudo -n -u 'root' -- ".length);
    expect(execFileSync('sh', ['-c', inner]).toString()).toBe('a b sh\n');
  });
});

describe('private keys', () => {
  it('tells encrypted keys from plain ones by their structure, and checks a passphrase locally', async () => {
    const cases = [
      ['plain-ed', ['-t', 'ed25519', '-N', '']],
      ['enc-ed', ['-t', 'ed25519', '-N', 'secret phrase']],
      ['plain-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', '']],
      ['enc-pem', ['-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', 'secret phrase']],
    ] as const;
    for (const [name, args] of cases) {
      execFileSync('ssh-keygen', ['-q', ...args, '-f', join(dir, name)]);
      const text = await readFile(join(dir, name), 'utf8');
      expect(keyIsEncrypted(text), name).toBe(name.startsWith('enc'));
      if (name.startsWith('plain')) expect(keyParses(text), name).toBe(true);
      if (name.startsWith('enc')) {
        expect(passphraseOpens(text, 'secret phrase')).toBe(true);
        expect(passphraseOpens(text, 'wrong')).toBe(false);
      }
    }
    expect(keyParses('root:x:0:0:root:/root:/bin/bash\n')).toBe(false);
  });
});

describe('targets and aliases file', () => {
  it('reads user@host[:port] and refuses what is not one', () => {
    expect(parseTarget('deploy@web.example')).toMatchObject({
      user: 'deploy',
      host: 'web.example',
      port: 22,
      auth: 'key',
    });
    expect(parseTarget('root@10.0.0.2:2222')).toMatchObject({ host: '10.0.0.2', port: 2222 });
    expect(parseTarget('me@[::1]:22022')).toMatchObject({ host: '::1', port: 22022 });
    expect(parseTarget('web-1')).toBeUndefined();
    for (const bad of ['@host', 'me@-oProxyCommand=x', 'me@host:99999', 'a b@host'])
      expect(() => parseTarget(bad), bad).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('writes atomically at 0600 with no temp file left, and refuses a file others can read or a broken one', async () => {
    const file = join(dir, 'cfg', 'aliases.json');
    const store = new AliasStore(file);
    expect(await store.all()).toEqual({});
    const alias = parseTarget('me@host.example')!;
    await store.put('one', alias);
    await store.put('two', { ...alias, sudo: { method: 'none' } });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'cfg'))).toEqual(['aliases.json']);
    expect(Object.keys(await store.all())).toEqual(['one', 'two']);
    expect(await store.remove('one')).toBe(true);
    expect(await store.remove('one')).toBe(false);
    await expect(store.get('one')).rejects.toMatchObject({ code: 'UNKNOWN_ALIAS' });
    execFileSync('chmod', ['640', file]);
    await expect(store.all()).rejects.toMatchObject({ code: 'ALIASES_FILE' });
    execFileSync('chmod', ['600', file]);
    await writeFile(file, '{"aliases":{"x":{"host":"h","user":"u","password":"no"}}}');
    await expect(store.all()).rejects.toMatchObject({
      code: 'ALIASES_FILE',
      message: expect.stringContaining('aliases.x'),
    });
  });
});

describe('transfer landing and the local root', () => {
  it('lands into a folder for a trailing "/" or an existing folder, else at the exact path', () => {
    expect(landingPath('/srv/', false, 'a.txt', posix.join)).toBe('/srv/a.txt');
    expect(landingPath('/srv', true, 'a.txt', posix.join)).toBe('/srv/a.txt');
    expect(landingPath('/srv/b.txt', false, 'a.txt', posix.join)).toBe('/srv/b.txt');
    expect(sourceName('/var/log/')).toBe('log');
    expect(() => sourceName('/')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(['ok.txt', '..', '.', 'a/b', 'a\\b', ''].map(safeEntryName)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('keeps local paths inside the root after resolving symlinks, for existing and new paths', async () => {
    const root = join(dir, 'root');
    await mkdir(join(root, 'in'), { recursive: true });
    await writeFile(join(root, 'in', 'f'), 'x');
    await symlink(tmpdir(), join(root, 'escape'));
    expect(await existingLocal(root, 'in/f')).toBe(join(root, 'in', 'f'));
    await writeFile(join(dir, 'outside'), 'x');
    await expect(existingLocal(root, '../outside')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    await expect(existingLocal(root, 'in/missing')).rejects.toMatchObject({ code: 'TRANSFER_FAILED' });
    await expect(existingLocal(root, 'escape')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    expect(await writableLocal(root, 'new/dir/file')).toBe(join(root, 'new', 'dir', 'file'));
    await expect(writableLocal(root, 'escape/new/file')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
    await expect(writableLocal(root, '/etc/x')).rejects.toMatchObject({ code: 'PATH_OUTSIDE_ROOT' });
  });
});
