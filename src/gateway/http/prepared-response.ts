/**
 * A response whose whole body is known when it is made (a JSON-RPC answer written at once).
 * The node adapter writes that text in one call with the head; no body stream is built for it
 * (a `Response` made from a string builds one, and that costs more than the answer's own
 * encoding). Its headers stay a plain record until someone asks for `headers`: the chain adds
 * its headers to that record (response-headers.ts) and the adapter hands it to Node as it is,
 * where a web `Headers` would validate, sort and copy them at every step. Anyone else who
 * reads the response (in-process callers, tests) gets the same body through the usual `body`,
 * `text()`, `json()` or `arrayBuffer()`, and the same headers through `headers`.
 */
// TypeScript's DOM types declare a Response's members as properties, which a subclass may not
// redefine as accessors or methods; at run time they are accessors and methods on the prototype.
const ResponseBase = Response as unknown as new (
  body: null,
  init: ResponseInit,
) => Pick<Response, 'status' | 'statusText'>;

class PreparedResponse extends ResponseBase {
  readonly #text: string;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  /** Read through `text()`, `json()` or `arrayBuffer()`: as with any response, once only. */
  #consumed = false;
  /** The headers by lower-case name, until `headers` is asked for; then that object holds them. */
  #fields: Record<string, string> | undefined;
  #headers: Headers | undefined;

  constructor(text: string, init: ResponseInit) {
    const { headers, ...rest } = init;
    super(null, rest);
    this.#text = text;
    this.#fields = plainFields(headers);
    if (this.#fields === undefined) this.#headers = new Headers(headers);
  }

  get headers(): Headers {
    if (this.#headers === undefined) {
      this.#headers = new Headers(this.#fields);
      this.#fields = undefined;
    }
    return this.#headers;
  }

  /** The headers as a record the holder may change, while no `Headers` was made of them. */
  get fields(): Record<string, string> | undefined {
    return this.#fields;
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

/**
 * The headers of a response made by `preparedResponse`, as a record by lower-case name that
 * the caller may change in place; undefined for any other response, or once its `headers`
 * were read (from then on they live there).
 */
export function preparedFields(response: Response): Record<string, string> | undefined {
  return response instanceof PreparedResponse ? response.fields : undefined;
}

/** Plain-object headers by lower-case name (a copy); undefined for a `Headers` or a list of pairs. */
function plainFields(headers: ResponseInit['headers']): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  if (headers === undefined) return fields;
  if (headers instanceof Headers || Array.isArray(headers)) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    // As `Headers` would: a name given twice in different case is one header, values joined.
    fields[key] = Object.hasOwn(fields, key) ? `${fields[key]}, ${String(value)}` : String(value);
  }
  return fields;
}

/** The whole body of a response made by `preparedResponse` and not yet read, or undefined for any other. */
export function preparedBody(response: Response): string | undefined {
  return response instanceof PreparedResponse ? response.wholeBody : undefined;
}
