import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkHostKey,
  fingerprint,
  hostName,
  KnownHosts,
  parseKnownHosts,
  recordedTypes,
} from '../../../examples/servers/ssh/known-hosts.js';

/**
 * known_hosts checking against files written and hashed by OpenSSH's own ssh-keygen: plain,
 * hashed, `[host]:port`, wildcards and negation, `@revoked`, and a changed key (also of another
 * type) being a mismatch, never "unknown".
 */
let dir: string;
const keys: Record<string, { pub: string; blob: Buffer }> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-known-'));
  for (const [name, type] of [
    ['a', 'ed25519'],
    ['b', 'ed25519'],
    ['c', 'ecdsa'],
  ] as const) {
    execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-f', join(dir, name)]);
    const pub = (await readFile(join(dir, `${name}.pub`), 'utf8')).trim().split(' ').slice(0, 2).join(' ');
    keys[name] = { pub, blob: Buffer.from(pub.split(' ')[1]!, 'base64') };
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('known_hosts', () => {
  it('names hosts as ssh does and fingerprints keys as ssh-keygen -l does', () => {
    expect(hostName('example.org', 22)).toBe('example.org');
    expect(hostName('10.0.0.1', 2222)).toBe('[10.0.0.1]:2222');
    const listed = execFileSync('ssh-keygen', ['-lf', join(dir, 'a.pub')])
      .toString()
      .split(' ')[1];
    expect(fingerprint(keys.a!.blob)).toBe(listed);
  });

  it('finds plain and ssh-keygen-hashed entries, with ports, and nothing for other hosts', async () => {
    const file = join(dir, 'known_hosts');
    await writeFile(
      file,
      `# comment\n\nexample.org,192.0.2.7 ${keys.a!.pub}\n[example.org]:2222 ${keys.b!.pub}\n`,
    );
    const plain = parseKnownHosts(await readFile(file, 'utf8'));
    execFileSync('ssh-keygen', ['-q', '-H', '-f', file]);
    const hashedText = await readFile(file, 'utf8');
    expect(hashedText).toContain('|1|');
    expect(hashedText).not.toContain('example.org');
    for (const entries of [plain, parseKnownHosts(hashedText)]) {
      expect(checkHostKey(entries, 'example.org', keys.a!.blob)).toEqual({ kind: 'known' });
      expect(checkHostKey(entries, '192.0.2.7', keys.a!.blob)).toEqual({ kind: 'known' });
      expect(checkHostKey(entries, '[example.org]:2222', keys.b!.blob)).toEqual({ kind: 'known' });
      expect(checkHostKey(entries, 'other.org', keys.a!.blob)).toEqual({ kind: 'unknown' });
      // The port-22 key does not vouch for port 2222, nor the reverse.
      expect(checkHostKey(entries, '[example.org]:2222', keys.a!.blob).kind).toBe('mismatch');
      expect(checkHostKey(entries, 'example.org', keys.b!.blob)).toEqual({
        kind: 'mismatch',
        recorded: [fingerprint(keys.a!.blob)],
      });
    }
  });

  it('treats a key of another type for a known host as a mismatch, and asks the server for the recorded type first', () => {
    const entries = parseKnownHosts(`host.example ${keys.a!.pub}\n`);
    expect(checkHostKey(entries, 'host.example', keys.c!.blob).kind).toBe('mismatch');
    expect(recordedTypes(entries, 'host.example')).toEqual(['ssh-ed25519']);
  });

  it('honours wildcards, negation and @revoked', () => {
    const entries = parseKnownHosts(
      [
        `*.corp.example,!bad.corp.example ${keys.a!.pub}`,
        `@revoked * ${keys.b!.pub}`,
        'garbage line',
        '',
      ].join('\n'),
    );
    expect(checkHostKey(entries, 'db.corp.example', keys.a!.blob)).toEqual({ kind: 'known' });
    expect(checkHostKey(entries, 'bad.corp.example', keys.a!.blob)).toEqual({ kind: 'unknown' });
    expect(checkHostKey(entries, 'anything', keys.b!.blob)).toEqual({ kind: 'revoked' });
    expect(checkHostKey(entries, 'db.corp.example', keys.b!.blob)).toEqual({ kind: 'revoked' });
  });

  it('appends a decision in a form ssh-keygen -F finds, creating the file at 0600', async () => {
    const file = join(dir, 'sub', 'known_hosts');
    const store = new KnownHosts(file);
    await store.add('[127.0.0.1]:2200', keys.a!.blob);
    await store.add('example.org', keys.b!.blob);
    expect(execFileSync('ssh-keygen', ['-F', '[127.0.0.1]:2200', '-f', file]).toString()).toContain(
      keys.a!.pub,
    );
    expect(checkHostKey(await store.entries(), 'example.org', keys.b!.blob)).toEqual({ kind: 'known' });
    expect(execFileSync('stat', ['-c', '%a', file]).toString().trim()).toBe('600');
  });
});
