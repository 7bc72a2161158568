/**
 * Getting a logged-in connection for an alias or a `user@host[:port]` target: from the pool,
 * or by dialling with strict host-key checking and the alias's login method, asking the person
 * (through `InputNeeded`) for a first-use host-key decision and for secrets when needed.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { type Alias, type AliasStore, checkAliasName, parseTarget } from './aliases.js';
import { type Answers, InputNeeded, type Question, secretFrom } from './asks.js';
import { type Credentials, openConnection, type SshConnection } from './connection.js';
import { SshError } from './errors.js';
import {
  checkHostKey,
  fingerprint,
  hostName,
  type KnownHosts,
  keyType,
  recordedTypes,
} from './known-hosts.js';
import { ConnectionPool } from './pool.js';
import { firstReadableKey, keyIsEncrypted, keyParses, passphraseOpens } from './private-key.js';
import { KeyedLock } from './remote-write.js';
import { SecretCache } from './secret-cache.js';
import type { SshSettings } from './settings.js';

/** A resolved target: the pool key (`user@host:port`), and the alias (or ad-hoc defaults). */
export interface Target {
  readonly key: string;
  readonly label: string;
  readonly alias: Alias;
}

/** The pool and the two secret caches, shared by every tool call of the process. */
export class Sessions {
  readonly pool: ConnectionPool<SshConnection>;
  readonly loginSecrets: SecretCache;
  readonly sudoSecrets: SecretCache;
  /** One edit at a time per remote file (edit_file, replace_lines), so concurrent edits all land. */
  readonly fileLocks = new KeyedLock();
  /** Fingerprints shown to the person in a host-key question, by known_hosts name. */
  private readonly shownHostKeys = new Map<string, string>();

  constructor(
    readonly settings: SshSettings,
    readonly aliases: AliasStore,
    readonly knownHosts: KnownHosts,
  ) {
    this.pool = new ConnectionPool({ ttlMs: settings.poolTtlMs, max: settings.poolMax });
    this.loginSecrets = new SecretCache(settings.loginSecretTtlMs);
    this.sudoSecrets = new SecretCache(settings.sudoSecretTtlMs);
  }

  /** An alias name or `user@host[:port]`, resolved. */
  async target(spec: string): Promise<Target> {
    const adHoc = parseTarget(spec);
    const alias = adHoc ?? (await this.aliases.get(checkAliasName(spec)));
    const key = `${alias.user}@${hostName(alias.host, alias.port)}`;
    return { key, label: adHoc ? key : `${spec} (${key})`, alias };
  }

  /** A logged-in connection for the target, from the pool or newly opened. */
  async connection(target: Target, answers: Answers): Promise<SshConnection> {
    const pooled = this.pool.take(target.key);
    if (pooled !== undefined) return pooled;
    this.pool.ensureRoom(target.key);
    const credentials = await this.credentials(target, answers);
    if (credentials instanceof InputNeeded) {
      // Settle the host key before asking for a secret for it: a probe that stops after the
      // key exchange, sending no credential.
      await this.dial(target, { kind: 'key' }, answers, { probe: true });
      throw credentials;
    }
    const connection = await this.dial(target, credentials.credentials, answers, { probe: false }).catch(
      (error: unknown) => {
        if (error instanceof SshError && error.code === 'AUTH_FAILED' && credentials.cacheKey !== undefined)
          this.loginSecrets.drop(credentials.cacheKey);
        throw error;
      },
    );
    if (credentials.cacheKey !== undefined && credentials.secret !== undefined)
      this.loginSecrets.set(credentials.cacheKey, credentials.secret);
    return this.pool.put(target.key, connection);
  }

  private ask(question: Question): InputNeeded {
    return new InputNeeded(question);
  }

  /** The credentials to offer, or the question that must be answered first. */
  private async credentials(
    target: Target,
    answers: Answers,
  ): Promise<{ credentials: Credentials; cacheKey?: string; secret?: string } | InputNeeded> {
    const { alias } = target;
    if (alias.auth === 'password') {
      const cacheKey = `password ${target.key}`;
      const cached = this.loginSecrets.get(cacheKey);
      if (cached !== undefined) return { credentials: { kind: 'password', password: cached } };
      const answer = answers('login_password');
      if (answer.kind === 'declined')
        throw new SshError('SECRET_DECLINED', `No password was given for ${target.label}; nothing was sent.`);
      const password = secretFrom(answer, 'password');
      if (password === undefined)
        return this.ask({
          key: 'login_password',
          message: `Password for ${target.key} (SSH login). It stays in the SSH server's memory for ${this.settings.loginSecretTtlMs / 1000} s and is never shown or stored.`,
          field: { kind: 'secret', name: 'password', title: 'Password' },
        });
      return { credentials: { kind: 'password', password }, cacheKey, secret: password };
    }
    const keyPath = alias.key_path?.replace(/^~(?=$|\/)/, homedir());
    const key = keyPath
      ? await firstReadableKey([resolve(keyPath)])
      : await firstReadableKey(this.settings.defaultKeys);
    if (keyPath && key === undefined)
      throw new SshError(
        'AUTH_FAILED',
        `The key ${keyPath} of ${target.label} cannot be read; fix key_path or the file's permissions.`,
      );
    const agent = this.settings.agentSocket;
    if (key === undefined) return { credentials: { kind: 'key', ...(agent && { agent }) } };
    if (!keyIsEncrypted(key.text)) {
      if (!keyParses(key.text))
        throw new SshError(
          'AUTH_FAILED',
          `${key.path} is not a private key this server can read; point key_path at an OpenSSH or PEM private key.`,
        );
      return { credentials: { kind: 'key', privateKey: key.text, ...(agent && { agent }) } };
    }
    const cacheKey = `passphrase ${key.path}`;
    const given = this.settings.keyPassphrase ?? this.loginSecrets.get(cacheKey);
    const answer = answers('key_passphrase');
    const passphrase = given ?? secretFrom(answer, 'passphrase');
    if (passphrase === undefined) {
      if (answer.kind === 'declined')
        throw new SshError('SECRET_DECLINED', `No passphrase was given for ${key.path}; nothing was sent.`);
      return this.ask({
        key: 'key_passphrase',
        message: `Passphrase of the private key ${key.path} (to log in to ${target.key}). Kept in memory only, never shown or stored.`,
        field: { kind: 'secret', name: 'passphrase', title: 'Key passphrase' },
      });
    }
    if (!passphraseOpens(key.text, passphrase)) {
      this.loginSecrets.drop(cacheKey);
      throw new SshError(
        'AUTH_FAILED',
        `That passphrase does not open ${key.path}; call again to be asked again.`,
      );
    }
    return {
      credentials: { kind: 'key', privateKey: key.text, passphrase, ...(agent && { agent }) },
      ...(given === undefined && { cacheKey, secret: passphrase }),
    };
  }

  /**
   * Opens a connection with strict host-key checking. An unknown key is accepted only when
   * the alias says `accept_new_host_key`, or when the person said yes to exactly this key's
   * fingerprint; either way it is then written to known_hosts. With `probe`, stops after the
   * key exchange (no credential is offered) and returns nothing.
   */
  private async dial(
    target: Target,
    credentials: Credentials,
    answers: Answers,
    options: { probe: true },
  ): Promise<undefined>;
  private async dial(
    target: Target,
    credentials: Credentials,
    answers: Answers,
    options: { probe: false },
  ): Promise<SshConnection>;
  private async dial(
    target: Target,
    credentials: Credentials,
    answers: Answers,
    options: { probe: boolean },
  ): Promise<SshConnection | undefined> {
    const { alias } = target;
    const name = hostName(alias.host, alias.port);
    const entries = await this.knownHosts.entries();
    const decision = answers('host_key');
    let unknownKey: Buffer | undefined;
    let accepted: Buffer | undefined;
    const verifyHostKey = (key: Buffer): SshError | undefined => {
      const verdict = checkHostKey(entries, name, key);
      const presented = `${keyType(key)} ${fingerprint(key)}`;
      if (verdict.kind === 'known') return undefined;
      if (verdict.kind === 'revoked')
        return new SshError(
          'HOST_KEY_REVOKED',
          `${name} presented a key marked @revoked in ${this.knownHosts.file} (${presented}); refused.`,
        );
      if (verdict.kind === 'mismatch')
        return new SshError(
          'HOST_KEY_MISMATCH',
          `HOST KEY MISMATCH for ${name}: it presented ${presented}, but ${this.knownHosts.file} records ${verdict.recorded.join(', ')}. ` +
            'Someone may be intercepting the connection, or the host was reinstalled. Refused. If the change is expected, ' +
            `remove the old entry (ssh-keygen -R '${name}' -f ${this.knownHosts.file}) and connect again.`,
        );
      const shown = this.shownHostKeys.get(name);
      const said = decision.kind === 'accepted' ? decision.content.trust === true : undefined;
      if (alias.accept_new_host_key || (shown === fingerprint(key) && said === true)) {
        accepted = key;
        return undefined;
      }
      if (shown === fingerprint(key) && (decision.kind === 'declined' || said === false))
        return new SshError(
          'HOST_KEY_UNKNOWN',
          `You did not trust the key of ${name} (${presented}); nothing was sent to it.`,
        );
      unknownKey = key;
      return new SshError('HOST_KEY_UNKNOWN', `${name} is not in ${this.knownHosts.file}.`);
    };
    const record = async () => {
      if (accepted === undefined) return;
      await this.knownHosts.add(name, accepted);
      this.shownHostKeys.delete(name);
      accepted = undefined;
    };
    try {
      const connection = await openConnection({
        host: alias.host,
        port: alias.port,
        user: alias.user,
        credentials,
        probe: options.probe,
        timeoutMs: this.settings.connectTimeoutMs,
        preferredHostKeyTypes: recordedTypes(entries, name),
        verifyHostKey,
      });
      await record();
      return connection;
    } catch (error) {
      await record();
      if (unknownKey !== undefined) {
        const shown = fingerprint(unknownKey);
        this.shownHostKeys.set(name, shown);
        throw new InputNeeded({
          key: 'host_key',
          message:
            `First connection to ${name}: it is not in ${this.knownHosts.file}. It presents the ${keyType(unknownKey)} key ${shown}. ` +
            "Trust this key and record it? Compare it with `ssh-keygen -lf` on the host's key first; say no if unsure.",
          field: { kind: 'confirm', name: 'trust', title: `Trust ${shown}` },
        });
      }
      if (options.probe && error instanceof SshError && error.code === 'AUTH_FAILED') return undefined;
      throw error;
    }
  }
}
