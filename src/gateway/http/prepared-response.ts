/**
 * Responses whose whole body is known when they are made (a JSON-RPC answer written at once):
 * the node adapter writes such a body in one call with its head, without reading the body
 * stream chunk by chunk — the stream is still there for anyone else who reads the response.
 */
const prepared = new WeakMap<Response, string>();

/** A response with `text` as its whole body, marked so the adapter can write it at once. */
export function preparedResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  prepared.set(response, text);
  return response;
}

/** The whole body of a response made by `preparedResponse`, or undefined for any other. */
export function preparedBody(response: Response): string | undefined {
  return prepared.get(response);
}
