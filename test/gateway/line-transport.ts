import { createInterface } from 'node:readline';
import type { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/client';

/** A client transport over a stdio gateway's in-process streams: one JSON message a line. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start(): Promise<void> {
    createInterface({ input: this.fromServer }).on('line', (line) => {
      if (line.trim() !== '') this.onmessage?.(JSON.parse(line));
    });
  }
  async send(message: unknown): Promise<void> {
    this.toServer.write(`${JSON.stringify(message)}\n`);
  }
  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}
