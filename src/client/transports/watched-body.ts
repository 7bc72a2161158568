import { SseScanner } from './sse-scan.js';

/**
 * Every response body of the HTTP transport, re-streamed so that we:
 *  - know when it is finished (read to the end, failed, or cancelled). Until then the request
 *    stays linked to its abort signals — its own (timeout, cancellation) and the transport's
 *    (close) — so aborting one cuts the socket even while a body dribbles in; a JSON, error
 *    or DELETE body too, which the SDK reads with `json()`/`text()` and never cancels itself.
 *    Then the link is undone: undici drops its own abort listener only when the request is
 *    garbage-collected, so one transport-wide signal would pile up a listener per request.
 *  - learn when a body breaks while being read (the socket reset or closed mid-body) and not
 *    by an abort of ours: the server is gone, and the transport can say so at once.
 *  - see each JSON-RPC message of a body before the SDK reads it (the whole body of a 2xx JSON
 *    answer at its end, an SSE body event by event), to catch malformed answers.
 *  - complete a final bare CR of an SSE body. SSE allows a bare CR as line ending, so a
 *    stream may end "data: …\r\r"; the SDK's parser (eventsource-parser 3.x) holds a final CR
 *    back, waiting for a possible LF, and never dispatches that last event. "\r" + "\n" is one
 *    line ending, so adding the LF changes nothing else.
 */
export interface BodyWatch {
  /** Runs once, when the body is done (or at once, when there is none). */
  readonly onDone: () => void;
  /** The body failed while being read, not by an abort of ours: the connection broke. */
  readonly onBroken: (error: unknown) => void;
  /** True when an abort of ours ended the body. */
  readonly aborted: () => boolean;
  /** A JSON-RPC message the body carries (parsed, possibly malformed), before the SDK reads it. */
  readonly onMessage: (message: unknown) => void;
}

const CR = 0x0d;
const LF = new Uint8Array([0x0a]);
/**
 * JSON bodies larger than this are not inspected (the SDK parses them anyway; a malformed one
 * still fails its request at once, with the parser's error): a second parse of many megabytes
 * costs more than the better message is worth.
 */
const MAX_INSPECTED_JSON_BYTES = 4 * 1024 * 1024;

/** The same response, its body watched as above. */
export function withWatchedBody(response: Response, watch: BodyWatch): Response {
  const source = response.body;
  if (!source) {
    watch.onDone();
    return response;
  }
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  const sse = type.startsWith('text/event-stream');
  const json = !sse && response.ok && type.startsWith('application/json');
  const scanner = sse ? new SseScanner((data) => inspect(data, watch)) : undefined;
  let chunks: Uint8Array[] | undefined = json ? [] : undefined;
  let collected = 0;
  const reader = source.getReader();
  let last: number | undefined;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    watch.onDone();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          if (chunks) inspect(new TextDecoder().decode(concat(chunks)), watch);
          if (sse && last === CR) controller.enqueue(LF);
          controller.close();
          finish();
          return;
        }
        if (value.length > 0) last = value[value.length - 1];
        // Seen before the SDK reads it: an answer put in place of a malformed one comes first.
        scanner?.push(value);
        if (chunks) {
          collected += value.length;
          if (collected > MAX_INSPECTED_JSON_BYTES) chunks = undefined;
          else chunks.push(value);
        }
        controller.enqueue(value);
      } catch (error) {
        finish();
        if (!watch.aborted()) watch.onBroken(error);
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

/** Hands each message of a JSON text (one message, or a batch) to the watch; not JSON is the SDK's to report. */
function inspect(text: string, watch: BodyWatch): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  if (Array.isArray(parsed)) for (const message of parsed) watch.onMessage(message);
  else watch.onMessage(parsed);
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}
