/**
 * One SSE response body, re-streamed so that we:
 *  - know when it is finished (read to the end, failed, or cancelled) and can unlink the
 *    request from the transport's abort signal then. undici drops its own abort listener only
 *    when the request is garbage-collected, so one transport-wide signal piles up a listener
 *    per request: a leak, and a slowdown, since each add scans the growing list.
 *  - complete a final bare CR of an SSE body. SSE allows a bare CR as line ending, so a
 *    stream may end "data: …\r\r"; the SDK's parser (eventsource-parser 3.x) holds a final CR
 *    back, waiting for a possible LF, and never dispatches that last event. "\r" + "\n" is one
 *    line ending, so adding the LF changes nothing else.
 */
const CR = 0x0d;
const LF = new Uint8Array([0x0a]);

/** The same response, its body watched as above. `onDone` runs exactly once. */
export function withWatchedBody(response: Response, onDone: () => void): Response {
  const source = response.body;
  if (!source) {
    onDone();
    return response;
  }
  const sse = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
  if (!sse) {
    // A JSON (or error) body is read at once by the SDK; it needs no abort link of its own.
    onDone();
    return response;
  }
  const reader = source.getReader();
  let last: number | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    onDone();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          if (last === CR) controller.enqueue(LF);
          controller.close();
          finish();
          return;
        }
        if (value.length > 0) last = value[value.length - 1];
        controller.enqueue(value);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    async cancel(reason) {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
