import { ERROR_TYPE_OTHER, TOOL_ERROR } from '../../core/telemetry/semconv.js';

/**
 * What a served MCP request came to, read off the answer the gateway sent: the outcome its
 * span and duration metric record (MCP conventions, `error.type` and
 * `rpc.response.status_code`). Pure reading of JSON-RPC messages; no I/O of its own.
 */
export interface Outcome {
  /** The JSON-RPC error code as a string, `tool_error`, or the HTTP status of a refusal. */
  readonly errorType?: string;
  readonly rpcCode?: number;
  /** The error's message (the span status description). */
  readonly message?: string;
}

/** The outcome of the JSON-RPC answer to `id` in `body` (one message or a batch), given the HTTP status. */
export function answerOutcome(body: unknown, id: unknown, status: number): Outcome {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id: answered, error, result } = message as { id?: unknown; error?: unknown; result?: unknown };
    // A parse or validation error is answered with id null: it answers this request all the same.
    if (answered !== id && answered !== null) continue;
    if (typeof error === 'object' && error !== null) {
      const { code, message: text } = error as { code?: unknown; message?: unknown };
      const rpcCode = typeof code === 'number' && Number.isInteger(code) ? code : undefined;
      return {
        errorType: rpcCode !== undefined ? String(rpcCode) : ERROR_TYPE_OTHER,
        ...(rpcCode !== undefined && { rpcCode }),
        ...(typeof text === 'string' && { message: text }),
      };
    }
    if (result !== undefined) {
      const isError =
        typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError;
      return isError === true ? { errorType: TOOL_ERROR } : {};
    }
  }
  return status >= 400 ? { errorType: String(status) } : {};
}

/**
 * Passes an SSE response through, ending the operation when an event carries the answer to
 * `id` (W3C "Server-Sent Events": events end at a blank line, `data:` lines joined by newlines),
 * or when the stream ends without one.
 */
export function watchSseAnswer(response: Response, id: unknown, end: (outcome: Outcome) => void): Response {
  const decoder = new TextDecoder();
  let pending = '';
  let done = false;
  const read = (text: string) => {
    pending += text;
    for (;;) {
      const cut = eventEnd(pending);
      if (cut === undefined) return;
      const event = pending.slice(0, cut.at);
      pending = pending.slice(cut.at + cut.length);
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (data.length === 0) continue;
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        continue;
      }
      const answered = (message as { id?: unknown } | null)?.id;
      if (answered === id) {
        done = true;
        end(answerOutcome(message, id, response.status));
        return;
      }
    }
  };
  const watched = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        if (!done) read(decoder.decode(chunk, { stream: true }));
      },
      flush() {
        if (!done) end(response.status >= 400 ? { errorType: String(response.status) } : {});
      },
    }),
  );
  return new Response(watched, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Where the first SSE event in `text` ends (its blank line), if one has. */
function eventEnd(text: string): { readonly at: number; readonly length: number } | undefined {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf === -1 && crlf === -1) return undefined;
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
}
