import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/client/auth/file-credential-store.js';
import { type AuthorizationServer, startAuthorizationServer } from '../fixtures/auth/authorization-server.js';
import { followRedirects } from '../fixtures/auth/follow-redirects.js';
import { type ProtectedMcpServer, startProtectedMcpServer } from '../fixtures/auth/protected-mcp-server.js';

/**
 * `switchboard auth` as a person runs it on a headless machine: a real child process, a real
 * authorization server; the URL it prints is followed elsewhere and the redirect URL pasted
 * back on stdin.
 */
const main = join(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.ts');
let dir: string;
let as: AuthorizationServer;
let rs: ProtectedMcpServer;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-cli-auth-'));
  as = await startAuthorizationServer();
  rs = await startProtectedMcpServer({ authorizationServer: as });
  await writeFile(
    join(dir, 'switchboard.json'),
    JSON.stringify({
      servers: {
        protected: { url: rs.url, auth: { type: 'oauth', scopes: ['mcp:read'] } },
        plain: { url: rs.url },
      },
    }),
  );
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await rs.close();
  await as.close();
  await rm(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--config', dir, '--data-dir', join(dir, 'data'), ...args],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, HOME: dir },
    },
  );
  children.push(child);
  const stderr = createInterface({ input: child.stderr! });
  const err: string[] = [];
  const out: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => out.push(l));
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? -1)));
  return { child, stderr, err, out, exited };
}

describe('switchboard auth', () => {
  it('logs in headless with a pasted redirect URL, then logs out', async () => {
    const run = cli('auth', 'protected', '--no-browser');
    let authorizationUrl = '';
    for await (const line of run.stderr) {
      run.err.push(line);
      if (line.startsWith('  http')) {
        authorizationUrl = line.trim();
        break;
      }
    }
    expect(run.err[0]).toBe('Sign in at:');
    const redirectUri = new URL(authorizationUrl).searchParams.get('redirect_uri')!;
    // The "browser" on another machine: it ends on the redirect URL, which cannot load there.
    const back = await followRedirects(authorizationUrl, { until: redirectUri });
    run.child.stdin!.write(`${back.url}\n`);
    run.stderr.on('line', (l) => run.err.push(l));
    expect(await run.exited).toBe(0);
    expect(run.err.at(-1)).toBe(
      'Logged in to protected. Running Switchboard processes pick it up within seconds.',
    );
    const store = new FileCredentialStore({ dataDir: join(dir, 'data') });
    expect(await store.issuers('protected')).toEqual([as.issuer]);

    const out = cli('--json', 'auth', 'protected', '--logout');
    expect(await out.exited).toBe(0);
    expect(JSON.parse(out.out[0]!)).toEqual({ server: 'protected', loggedOut: true, deleted: 1 });
    expect(await store.issuers('protected')).toEqual([]);
  });

  it('exits 2 with a clear message for a usage mistake, an unknown server or one without OAuth', async () => {
    for (const [args, message] of [
      [['auth'], 'auth takes exactly one server name'],
      [['auth', 'nope'], 'No server named "nope"'],
      [['auth', 'plain'], 'does not use OAuth'],
      [['frobnicate'], 'Unknown verb "frobnicate"'],
    ] as const) {
      const run = cli(...args);
      run.stderr.on('line', (l) => run.err.push(l));
      expect(await run.exited, args.join(' ')).toBe(2);
      expect(run.err.join('\n')).toContain(message);
    }
  });
});
