/**
 * SSE allows a bare CR as line ending, so a stream may end "data: …\r\r". The SDK's parser
 * (eventsource-parser 3.x) holds a final CR back, waiting to see whether an LF follows, and
 * never dispatches the last event when the stream ends there. This byte transform adds the
 * LF that lets it finish: "\r" + "\n" is one line ending, so nothing else changes meaning.
 */
const CR = 0x0d;

export function completeTrailingCarriageReturn(): TransformStream<Uint8Array, Uint8Array> {
  let last: number | undefined;
  return new TransformStream({
    transform(chunk, controller) {
      if (chunk.length > 0) last = chunk[chunk.length - 1];
      controller.enqueue(chunk);
    },
    flush(controller) {
      if (last === CR) controller.enqueue(new Uint8Array([0x0a]));
    },
  });
}

/** The same response, its SSE body passed through the transform above. */
export function withCompleteSseEnding(response: Response): Response {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !type.toLowerCase().startsWith('text/event-stream')) return response;
  return new Response(response.body.pipeThrough(completeTrailingCarriageReturn()), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
