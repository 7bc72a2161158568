/**
 * Reads Server-Sent Events from a response body, for tests that look at the wire itself
 * (event ids, `retry`, the `endpoint` event). Comments (keep-alives) are skipped; every read
 * is bounded, so a missing event fails the test instead of hanging it.
 */
export interface SseEvent {
  readonly event?: string;
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

export class SseReader {
  // The body's own reader, not a piped one: cancelling it reaches the server's stream at once.
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';

  constructor(body: ReadableStream<Uint8Array> | null) {
    if (!body) throw new Error('the response has no body');
    this.reader = body.getReader();
  }

  /** The next event, or `undefined` once the stream has ended. */
  async next(timeoutMs = 10_000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.take();
      if (event) return event;
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms`)), Math.max(0, left));
      });
      try {
        const { done, value } = await Promise.race([this.reader.read(), timeout]);
        if (done) return undefined;
        this.buffer += this.decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** The next event's data as JSON, skipping events whose data is empty (priming events). */
  async nextMessage(timeoutMs?: number): Promise<{ id?: string; message: Record<string, unknown> }> {
    for (let i = 0; i < 100; i++) {
      const event = await this.next(timeoutMs);
      if (!event) throw new Error('the stream ended before a message');
      if (event.data.trim() !== '')
        return { ...(event.id !== undefined && { id: event.id }), message: JSON.parse(event.data) };
    }
    throw new Error('100 events without a message');
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private take(): SseEvent | undefined {
    for (;;) {
      const end = /\r?\n\r?\n/.exec(this.buffer);
      if (!end) return undefined;
      const block = this.buffer.slice(0, end.index);
      this.buffer = this.buffer.slice(end.index + end[0].length);
      const fields = block.split(/\r?\n/).filter((line) => !line.startsWith(':'));
      if (fields.length === 0) continue;
      const event: { event?: string; id?: string; retry?: number; data: string[] } = { data: [] };
      for (const line of fields) {
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data') event.data.push(value);
        else if (name === 'event') event.event = value;
        else if (name === 'id') event.id = value;
        else if (name === 'retry') event.retry = Number(value);
      }
      return { ...event, data: event.data.join('\n') };
    }
  }
}
