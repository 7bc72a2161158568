/**
 * `StoreNotifications` on PostgreSQL: LISTEN on one connection of its own (a pooled one would
 * go back to the pool and stop listening), NOTIFY through the pool. A lost listening
 * connection is made again, with backoff, and every listener is told it may have missed
 * something (`undefined`), so it reads the store again instead of trusting what it had.
 */
import type pg from 'pg';
import type { StoreNotifications } from './ports.js';

/** Channel names are ours (constants), checked anyway: they are SQL identifiers. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
/** NOTIFY refuses payloads of 8,000 bytes and more; a margin for the encoding. */
const MAX_PAYLOAD_BYTES = 7_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

type Listener = (payload: string | undefined) => void;

/** Notifications over `pool`'s database; `Client` is pg's, to open the listening connection. */
export class PostgresNotifications implements StoreNotifications {
  private readonly channels = new Map<string, Set<Listener>>();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private retryMs = RETRY_MIN_MS;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly Client: typeof pg.Client,
  ) {}

  async listen(channel: string, listener: Listener): Promise<() => void> {
    checkChannel(channel);
    let listeners = this.channels.get(channel);
    const first = listeners === undefined;
    if (!listeners) {
      listeners = new Set();
      this.channels.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      const client = await this.connected();
      if (first && this.client === client) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      // Listening starts when the connection is back; the listener is told to read again then.
      this.reconnect();
      throw error;
    }
    return () => {
      const set = this.channels.get(channel);
      if (!set?.delete(listener) || set.size > 0) return;
      this.channels.delete(channel);
      void this.client?.query(`UNLISTEN ${channel}`).catch(() => undefined);
    };
  }

  async notify(channel: string, payload = ''): Promise<void> {
    checkChannel(channel);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES)
      throw new RangeError(
        `A notification carries at most ${MAX_PAYLOAD_BYTES} bytes (got ${payload.length}).`,
      );
    await this.pool.query('select pg_notify($1, $2)', [channel, payload]);
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.channels.clear();
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The listening connection, made (and every channel listened to) if there is none. */
  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    if (this.closed) throw new Error('The store is closed.');
    const client = new this.Client(this.pool.options);
    // Errors of an idle connection (the server restarted) end it: it is made again below.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    await client.connect();
    for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('The store is closed.');
    }
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
    return client;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed || this.retry || this.channels.size === 0) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connected().then(
        // Whatever was sent while no connection listened is lost: every listener reads again.
        () => {
          for (const listeners of this.channels.values())
            for (const l of [...listeners]) safely(l, undefined);
        },
        () => {
          this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
          this.reconnect();
        },
      );
    }, this.retryMs);
    this.retry.unref();
  }

  private dispatch(channel: string, payload: string): void {
    const listeners = this.channels.get(channel);
    if (listeners) for (const listener of [...listeners]) safely(listener, payload);
  }
}

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel))
    throw new RangeError(`"${channel}" is not a notification channel name (lower-case letters, digits, _).`);
}

/** A listener that throws must not stop the others. */
function safely(listener: Listener, payload: string | undefined): void {
  try {
    listener(payload);
  } catch (error) {
    process.emitWarning(`A store notification listener threw: ${String(error)}`);
  }
}
