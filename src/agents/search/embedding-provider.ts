import { SwitchboardError } from '../../core/errors.js';

/**
 * Where embeddings come from, for `search_tools` when a user has a provider (off by default:
 * search ranks offline). One method, so anything can stand behind it: the OpenAI-compatible
 * HTTP endpoint below (hosted, or a local model served on 127.0.0.1 by llama.cpp, Ollama,
 * vLLM, text-embeddings-inference…), or an embedding app's own in-process model.
 */
export interface EmbeddingProvider {
  /** Names the model, so vectors of different models are never mixed in one cache. */
  readonly id: string;
  /**
   * One unit-length vector per text, in order, all of one length. Rejects with a
   * SwitchboardError (UPSTREAM_HTTP, UPSTREAM_PROTOCOL, REQUEST_TIMEOUT, REQUEST_CANCELLED)
   * rather than hang: `signal` ends the request.
   */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
}

/** Options of {@link createOpenAIEmbeddings}. */
export interface OpenAIEmbeddingsOptions {
  /** The full URL of the endpoint, e.g. `http://127.0.0.1:11434/v1/embeddings`. */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer …` when present. */
  readonly apiKey?: string;
  /** Asked of models that can shorten their vectors. */
  readonly dimensions?: number;
  /** For tests and embedding apps; default the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Longest answer read from an endpoint: a batch of 64 vectors of 3,072 floats as JSON fits. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * A provider over an OpenAI-compatible `POST /v1/embeddings` (OpenAI API reference,
 * "Create embeddings"): `{model, input: [...]}` in, `{data: [{index, embedding}]}` out.
 * Everything the endpoint answers is checked — count, indices, numbers, one length — since
 * a wrong vector would silently rank wrong.
 */
export function createOpenAIEmbeddings(options: OpenAIEmbeddingsOptions): EmbeddingProvider {
  const doFetch = options.fetch ?? fetch;
  const where = new URL(options.url).host;
  return {
    id: `${options.url}#${options.model}${options.dimensions ? `@${options.dimensions}` : ''}`,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      let response: Response;
      try {
        response = await doFetch(options.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey && { authorization: `Bearer ${options.apiKey}` }),
          },
          body: JSON.stringify({
            model: options.model,
            input: texts,
            ...(options.dimensions && { dimensions: options.dimensions }),
          }),
          signal,
        });
      } catch (error) {
        throw requestFailed(error, signal, where);
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new SwitchboardError(
          'UPSTREAM_HTTP',
          `The embeddings endpoint at ${where} answered HTTP ${response.status}; check its URL, model and API key in the "search" section.`,
          { details: { status: response.status } },
        );
      }
      let body: unknown;
      try {
        const text = await readBounded(response);
        body = JSON.parse(text);
      } catch (error) {
        if (signal.aborted) throw requestFailed(error, signal, where);
        throw malformed(where, 'its answer is not JSON');
      }
      return parseEmbeddings(body, texts.length, where);
    },
  };
}

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error('too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The vectors of an embeddings answer, in input order, unit length; throws when it is off. */
export function parseEmbeddings(body: unknown, count: number, where = 'the endpoint'): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count)
    throw malformed(where, `it should hold "data" with ${count} embeddings`);
  const out: (Float32Array | undefined)[] = new Array(count);
  let length: number | undefined;
  data.forEach((item: unknown, position) => {
    const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || out[index])
      throw malformed(where, `embedding ${position} has a bad or repeated index`);
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      embedding.some((x) => typeof x !== 'number' || !Number.isFinite(x))
    )
      throw malformed(where, `embedding ${index} is not a list of numbers (ask for encoding_format "float")`);
    if (length !== undefined && embedding.length !== length)
      throw malformed(where, 'its embeddings differ in length');
    length = embedding.length;
    const vector = Float32Array.from(embedding as number[]);
    let norm = 0;
    for (const x of vector) norm += x * x;
    if (norm === 0) throw malformed(where, `embedding ${index} is all zeros`);
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
    out[index] = vector;
  });
  return out as Float32Array[];
}

function malformed(where: string, problem: string): SwitchboardError {
  return new SwitchboardError(
    'UPSTREAM_PROTOCOL',
    `The embeddings endpoint at ${where} gave an answer search cannot use: ${problem}. Check that it speaks the OpenAI embeddings API.`,
  );
}

function requestFailed(error: unknown, signal: AbortSignal, where: string): SwitchboardError {
  if (signal.aborted) {
    const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
    return new SwitchboardError(
      timedOut ? 'REQUEST_TIMEOUT' : 'REQUEST_CANCELLED',
      timedOut
        ? `The embeddings endpoint at ${where} did not answer in time; raise "search.embeddings.timeoutMs" or check the endpoint.`
        : `The request to the embeddings endpoint at ${where} was cancelled.`,
      { cause: error },
    );
  }
  return new SwitchboardError(
    'UPSTREAM_HTTP',
    `Could not reach the embeddings endpoint at ${where}: ${error instanceof Error ? error.message : String(error)}. Check that it is running and its URL.`,
    { cause: error },
  );
}
