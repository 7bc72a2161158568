import { describe, expect, it } from 'vitest';
import {
  completeTrailingCarriageReturn,
  withCompleteSseEnding,
} from '../../../src/client/transports/sse-eof.js';

async function pass(chunks: string[]): Promise<string> {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      controller.close();
    },
  });
  return new Response(input.pipeThrough(completeTrailingCarriageReturn())).text();
}

describe('completeTrailingCarriageReturn', () => {
  it('adds LF only after a final bare CR', async () => {
    expect(await pass(['data: x\r', '\r'])).toBe('data: x\r\r\n');
    expect(await pass(['data: x\r\n\r\n'])).toBe('data: x\r\n\r\n');
    expect(await pass(['data: x\n\n', ''])).toBe('data: x\n\n');
    expect(await pass([])).toBe('');
  });

  it('leaves non-SSE responses alone', () => {
    const json = new Response('{}', { headers: { 'content-type': 'application/json' } });
    expect(withCompleteSseEnding(json)).toBe(json);
    const sse = new Response('data: x\r\r', {
      headers: { 'content-type': 'text/event-stream' },
      status: 200,
    });
    const wrapped = withCompleteSseEnding(sse);
    expect(wrapped).not.toBe(sse);
    expect(wrapped.headers.get('content-type')).toBe('text/event-stream');
  });
});
