import type { ApiSession } from '../../src/gateway/api/api-types.js';
import { ApiRequestError, errorFromResponse } from './api-error.js';
import { readToken, saveToken } from './token-store.js';

/** Query parameters; undefined and empty values are left out. */
export type Query = Readonly<Record<string, string | number | undefined>>;

/** Per-request options: `signal` aborts the request (the API then cancels what it started). */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The dashboard's one way to the HTTP API (src/gateway/api/api-types.ts): JSON in and out,
 * errors as `ApiRequestError` with the API's message. State-changing requests carry the
 * `X-Switchboard-CSRF` token of `GET /api/session`; a bearer token, once the person gave one,
 * goes on every request. A 401 tells the listeners, so the page can ask for a token.
 */
export class ApiClient {
  readonly #base: string;
  #token: string | undefined = readToken();
  #session: Promise<ApiSession> | undefined;
  readonly #unauthorized = new Set<(message: string) => void>();

  constructor(options: { readonly base?: string } = {}) {
    this.#base = options.base ?? '';
  }

  /** Whether a bearer token is in use (media then has to be fetched with it). */
  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** Uses `token` from now on (undefined: none) and forgets the session it had. */
  setToken(token: string | undefined): void {
    this.#token = token;
    saveToken(token);
    this.#session = undefined;
  }

  /** Calls `listener` with the API's message (where the token is) on every 401; returns the unsubscribe. */
  onUnauthorized(listener: (message: string) => void): () => void {
    this.#unauthorized.add(listener);
    return () => this.#unauthorized.delete(listener);
  }

  /** The headers that authenticate a request: the bearer token, when there is one. */
  authHeaders(): Record<string, string> {
    return this.#token === undefined ? {} : { authorization: `Bearer ${this.#token}` };
  }

  /** `GET /api/session`, asked once and kept; `refresh` asks again. */
  session(options: { readonly refresh?: boolean } = {}): Promise<ApiSession> {
    if (options.refresh || this.#session === undefined) {
      const asked = this.#json<ApiSession>('GET', '/api/session', undefined);
      this.#session = asked;
      asked.catch(() => {
        if (this.#session === asked) this.#session = undefined;
      });
    }
    return this.#session;
  }

  get<T>(path: string, query?: Query, options?: RequestOptions): Promise<T> {
    return this.#json<T>('GET', withQuery(path, query), undefined, options);
  }

  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.#json<T>('POST', path, body, options);
  }

  put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T> {
    return this.#json<T>('PUT', path, body, options);
  }

  delete(path: string, options?: RequestOptions): Promise<void> {
    return this.#json<void>('DELETE', path, undefined, options);
  }

  /**
   * Opens an SSE stream (`text/event-stream`) with the auth headers, which `EventSource`
   * cannot send. Resolves to the response once its headers are in; an error status throws.
   */
  async openStream(path: string, signal: AbortSignal): Promise<Response> {
    const response = await this.#fetch(path, {
      headers: { accept: 'text/event-stream', ...this.authHeaders() },
      signal,
    });
    if (!response.ok) throw await this.#failed(response);
    return response;
  }

  /**
   * A URL the page can put in `<img>`/`<audio>` for a saved media file: the URL itself when no
   * token is needed, else a `blob:` URL of the bytes fetched with the token (`release` frees it).
   */
  async mediaSource(url: string, signal?: AbortSignal): Promise<{ src: string; release: () => void }> {
    if (!this.hasToken) return { src: url, release: () => undefined };
    const response = await this.#fetch(url, { headers: this.authHeaders(), ...(signal && { signal }) });
    if (!response.ok) throw await this.#failed(response);
    const src = URL.createObjectURL(await response.blob());
    return { src, release: () => URL.revokeObjectURL(src) };
  }

  async #json<T>(
    method: string,
    path: string,
    body: unknown,
    options: RequestOptions = {},
    retried = false,
  ): Promise<T> {
    const { signal } = options;
    const headers: Record<string, string> = { accept: 'application/json', ...this.authHeaders() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (STATE_CHANGING.has(method)) headers['x-switchboard-csrf'] = (await this.session()).csrfToken;
    // Aborted while the session was being fetched: the request is not sent at all.
    signal?.throwIfAborted();
    const response = await this.#fetch(path, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(signal && { signal }),
    });
    if (!response.ok) {
      const error = await this.#failed(response);
      // A gateway that restarted has a new CSRF token: fetch it and try once more.
      if (error.code === 'CSRF_REQUIRED' && !retried) {
        await this.session({ refresh: true });
        return this.#json<T>(method, path, body, options, true);
      }
      throw error;
    }
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  async #fetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.#base}${path}`, { credentials: 'same-origin', ...init });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiRequestError(
        0,
        'NETWORK',
        'Cannot reach the Switchboard gateway. Is it still running? The page retries when it is back.',
      );
    }
  }

  async #failed(response: Response): Promise<ApiRequestError> {
    const error = await errorFromResponse(response);
    if (response.status === 401) for (const listener of [...this.#unauthorized]) listener(error.message);
    return error;
  }
}

/** `path?k=v&…` with the defined, non-empty values of `query`. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** A path segment: the name encoded so `/`, `?` and `#` in it stay part of the name. */
export function segment(name: string): string {
  return encodeURIComponent(name);
}
