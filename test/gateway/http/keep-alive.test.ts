import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_TIMEOUTS, listen, type NodeListener } from '../../../src/gateway/http/node-adapter.js';

/**
 * The listener keeps idle keep-alive connections open longer than clients and load balancers
 * keep theirs (60 s is common), so that it is never the server that closes a connection a
 * client is about to reuse (the "other side closed" / ECONNRESET races of a soak under load).
 */
let listener: NodeListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

const ok = async (): Promise<Response> => new Response('ok');

describe('keep-alive', () => {
  it('runs with a keep-alive timeout above 60 s and header and request timeouts above that', async () => {
    listener = await listen(ok, { host: '127.0.0.1', port: 0 });
    const { keepAliveTimeout, headersTimeout, requestTimeout } = listener.timeouts;
    expect(keepAliveTimeout).toBeGreaterThan(60_000);
    // Node closes a kept-alive connection whose next headers are late: that must come after.
    expect(headersTimeout).toBeGreaterThan(keepAliveTimeout);
    expect(requestTimeout === 0 || requestTimeout >= headersTimeout).toBe(true);
    expect(listener.timeouts).toEqual(CONNECTION_TIMEOUTS);
    // Clients that read the hint (RFC 9112 leaves it to them; undici does) learn it on every answer.
    const response = await fetch(`${listener.url}/`);
    expect(response.headers.get('keep-alive')).toBe(`timeout=${keepAliveTimeout / 1000}`);
    await response.text();
  });

  it('keeps an idle connection open past Node’s default 5 s, and serves the next request on it', async () => {
    listener = await listen(ok, { host: '127.0.0.1', port: 0 });
    const socket = connect(listener.port, '127.0.0.1');
    try {
      const closed = new Promise<'closed'>((resolve) => {
        socket.once('end', () => resolve('closed'));
        socket.once('close', () => resolve('closed'));
      });
      const reader = responses(socket);
      socket.write(`GET /a HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\n\r\n`);
      expect(await reader.next()).toMatch(/^HTTP\/1\.1 200/);
      // Idle on purpose: this wait is what is measured. A client whose pool keeps connections
      // 7 s reuses this one now: longer than Node's default (5 s, and Node closes about a second
      // after it), far shorter than the 65 s here.
      const idle = await Promise.race([closed, delay(7_000).then(() => 'open' as const)]);
      expect(idle).toBe('open');
      socket.write(`GET /b HTTP/1.1\r\nHost: 127.0.0.1:${listener.port}\r\n\r\n`);
      expect(await reader.next()).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  }, 20_000);
});

/** Each complete response (its head and its body, by length or chunked) read from `socket`, as text. */
function responses(socket: Socket): { next(): Promise<string> } {
  let buffered = '';
  const waiting: ((text: string) => void)[] = [];
  const ready: string[] = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.slice(0, end);
      let size: number;
      if (/transfer-encoding: *chunked/i.test(head)) {
        // The body ends with the last chunk (RFC 9112 §7.1); these bodies have no trailers.
        const last = buffered.indexOf('0\r\n\r\n', end + 4);
        if (last === -1) return;
        size = last + 5;
      } else {
        size = end + 4 + Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < size) return;
      }
      const one = buffered.slice(0, size);
      buffered = buffered.slice(one.length);
      const taker = waiting.shift();
      if (taker) taker(one);
      else ready.push(one);
    }
  });
  return {
    next: () => {
      const first = ready.shift();
      if (first !== undefined) return Promise.resolve(first);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        socket.once('close', () => reject(new Error('the connection closed before a response')));
      });
    },
  };
}
