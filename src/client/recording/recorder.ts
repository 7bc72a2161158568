import { performance } from 'node:perf_hooks';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { CASSETTE_VERSION, type CassetteLine, headerLine, messageLine } from './cassette.js';
import { redact } from './redact.js';

/**
 * Records a session by relaying it: every message a client sends goes to the server's
 * transport as it is, every message the server sends goes back to the client as it is, and
 * each is written to the cassette (redacted) as it passes. A relay of raw messages, not a
 * client and a server of the SDK's: what is recorded is exactly what crossed, in both eras,
 * including what the SDK would refuse or answer itself. The recording ends when either side
 * closes; the other side is closed then.
 */

export interface RecordOptions {
  /** The side the recorded client talks to (e.g. a stdio server transport on our own stdin). */
  readonly client: Transport;
  /** The recorded server's transport, not yet started. */
  readonly upstream: Transport;
  readonly server: string;
  /** Values that must not be kept: the server's env values, headers, tokens (redact.ts). */
  readonly secretValues?: readonly string[];
  /** Writes one line of the cassette (a newline follows each). */
  readonly write: (line: string) => void;
  readonly now?: () => number;
}

export interface Recording {
  /** Resolves when either side closed and the other was closed too. */
  readonly done: Promise<void>;
  /** Ends the recording: closes both sides. */
  close(): Promise<void>;
}

export async function recordSession(options: RecordOptions): Promise<Recording> {
  const { client, upstream, write } = options;
  const now = options.now ?? (() => performance.now());
  const started = now();
  const secrets = options.secretValues ?? [];
  write(
    `${headerLine({ cassette: CASSETTE_VERSION, server: options.server, recordedAt: new Date().toISOString() })}\n`,
  );
  const note = (from: CassetteLine['from'], message: JSONRPCMessage) => {
    const at = Math.round((now() - started) * 10) / 10;
    write(`${messageLine({ at, from, message: redact(message, secrets) })}\n`);
  };
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let closing = false;
  const close = async () => {
    if (closing) return done;
    closing = true;
    await Promise.allSettled([client.close(), upstream.close()]);
    finish();
    return done;
  };
  upstream.onmessage = (message) => {
    note('server', message);
    void client.send(message).catch(() => void close());
  };
  client.onmessage = (message) => {
    note('client', message);
    void upstream.send(message).catch(() => void close());
  };
  upstream.onclose = () => void close();
  client.onclose = () => void close();
  upstream.onerror = () => undefined;
  client.onerror = () => undefined;
  await upstream.start();
  await client.start();
  return { done, close };
}
