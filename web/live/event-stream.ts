import type { ApiClient } from '../api/api-client.js';
import { errorMessage } from '../api/api-error.js';
import { backoffDelay } from './backoff.js';
import { type SseMessage, SseParser } from './sse-parser.js';
import type { StreamStatus } from './stream-status.js';

export interface FollowOptions {
  readonly onMessage: (message: SseMessage) => void;
  readonly onStatus?: (status: StreamStatus) => void;
  /** Called each time the stream (re)opens, before its first message. */
  readonly onOpen?: () => void;
}

/**
 * Follows an SSE route of the API with fetch and a ReadableStream (so the Authorization header
 * goes along, which EventSource cannot do), reconnecting with backoff when it drops. A 401
 * stops it: the page asks for a token and follows again. Returns the function that stops it.
 */
export function followStream(client: ApiClient, path: string, options: FollowOptions): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  const status = (value: StreamStatus) => {
    if (!signal.aborted) options.onStatus?.(value);
  };

  const run = async () => {
    let attempt = 0;
    while (!signal.aborted) {
      status({ state: 'connecting' });
      try {
        const response = await client.openStream(path, signal);
        attempt = 0;
        status({ state: 'open' });
        options.onOpen?.();
        await readMessages(response, signal, options.onMessage);
        if (signal.aborted) return;
        throw new Error('The stream ended.');
      } catch (error) {
        if (signal.aborted) return;
        if ((error as { status?: number }).status === 401) {
          status({ state: 'unauthorized' });
          return;
        }
        const delay = backoffDelay(attempt++);
        status({ state: 'retrying', at: Date.now() + delay, error: errorMessage(error) });
        await wait(delay, signal);
      }
    }
  };
  void run();
  return () => controller.abort();
}

async function readMessages(
  response: Response,
  signal: AbortSignal,
  onMessage: (message: SseMessage) => void,
): Promise<void> {
  if (!response.body) throw new Error('The stream has no body.');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) return;
      for (const message of parser.push(value)) onMessage(message);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
