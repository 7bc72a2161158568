/**
 * What every SSH test file sets up the same way: one real sshd for the file, the SSH server
 * processes its tests start (closed after each test), and `setup`, which starts a server in a
 * fresh world with the alias `me` — the current user, logging in with the sshd's client key,
 * the host key accepted on first use.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type Answerer, makeWorld, type SshClient, startSshServer, type World } from './ssh-client.js';
import { type Sshd, startSshd } from './sshd-fixture.js';

/** A test file's sshd and its helpers. */
export interface SshSuite {
  /** The running sshd (after `beforeAll`). */
  readonly sshd: Sshd;
  /** Starts the SSH server with `env`; it is closed after the test. */
  server(env: Record<string, string>, answer?: Answerer, era?: 'legacy' | 'auto'): Promise<SshClient>;
  /** A world and a server in it with the alias `me` (fields of `me` may be added or changed). */
  setup(options?: {
    env?: Record<string, string>;
    answer?: Answerer;
    me?: Record<string, unknown>;
  }): Promise<{
    client: SshClient;
    world: World;
    dir: string;
    add(name: string, fields: Record<string, unknown>): Promise<void>;
  }>;
}

/** Registers the hooks of a test file; call it at the file's top level. */
export function sshSuite(options: Parameters<typeof startSshd>[0] = {}): SshSuite {
  let running: Sshd | undefined;
  const clients: SshClient[] = [];
  beforeAll(async () => {
    running = await startSshd(options);
  });
  afterAll(async () => {
    await running?.stop();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  });
  const suite: SshSuite = {
    get sshd() {
      if (running === undefined) throw new Error('the sshd is not started yet (use it inside a test)');
      return running;
    },
    async server(env, answer, era) {
      const client = await startSshServer({ env, ...(answer && { answer }), ...(era && { era }) });
      clients.push(client);
      return client;
    },
    async setup({ env = {}, answer, me = {} } = {}) {
      const sshd = suite.sshd;
      const world = await makeWorld(sshd.dir, sshd.clientKey, env);
      const client = await suite.server(world.env, answer);
      const add = async (name: string, fields: Record<string, unknown>) => {
        const added = await client.call('add_alias', {
          name,
          host: '127.0.0.1',
          port: sshd.port,
          accept_new_host_key: true,
          ...fields,
        });
        expect(added.isError, added.text).toBe(false);
      };
      await add('me', { user: sshd.user, key_path: sshd.clientKey, ...me });
      return { client, world, dir: world.remoteDir, add };
    },
  };
  return suite;
}
