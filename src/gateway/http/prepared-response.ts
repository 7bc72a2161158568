/**
 * A response whose whole body is known when it is made (a JSON-RPC answer written at once).
 * The node adapter writes that text in one call with the head; no body stream is built for it
 * (a `Response` made from a string builds one, and that costs more than the answer's own
 * encoding). Anyone else who reads the response (in-process callers, tests) gets the same
 * body through the usual `body`, `text()`, `json()` or `arrayBuffer()`.
 */
// TypeScript's DOM types declare a Response's members as properties, which a subclass may not
// redefine as accessors or methods; at run time they are accessors and methods on the prototype.
const ResponseBase = Response as unknown as new (
  body: null,
  init: ResponseInit,
) => Pick<Response, 'status' | 'statusText' | 'headers'>;

class PreparedResponse extends ResponseBase {
  readonly #text: string;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  /** Read through `text()`, `json()` or `arrayBuffer()`: as with any response, once only. */
  #consumed = false;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this.#text = text;
  }

  /** The whole body for the adapter's single write, while nobody has read or taken it. */
  get wholeBody(): string | undefined {
    return this.#stream === undefined && !this.#consumed ? this.#text : undefined;
  }

  get body(): ReadableStream<Uint8Array> | null {
    this.#stream ??= new Response(this.#text).body;
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#consumed || (this.#stream?.locked ?? false);
  }

  text(): Promise<string> {
    if (this.bodyUsed) return Promise.reject(new TypeError('The response body was read already.'));
    if (this.#stream !== undefined) return new Response(this.#stream).text();
    this.#consumed = true;
    return Promise.resolve(this.#text);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = new TextEncoder().encode(await this.text());
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  clone(): Response {
    return preparedResponse(this.#text, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
  }
}

/** A response with `text` as its whole body, marked so the adapter can write it at once. */
export function preparedResponse(text: string, init: ResponseInit): Response {
  return new PreparedResponse(text, init) as unknown as Response;
}

/** The whole body of a response made by `preparedResponse` and not yet read, or undefined for any other. */
export function preparedBody(response: Response): string | undefined {
  return response instanceof PreparedResponse ? response.wholeBody : undefined;
}
