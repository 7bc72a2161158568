import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewaySection, resolveGateway } from '../../../src/core/config/gateway-config.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';
import type { ApiError, ApiSession } from '../../../src/gateway/api/api-types.js';
import { localCookieName } from '../../../src/gateway/http/auth/local-token.js';
import { type HttpGateway, startHttpGateway } from '../../../src/gateway/http-gateway.js';
import { Host, type HostOptions } from '../../../src/host/host.js';
import { kitchenSinkBin } from '../../fixtures/paths.js';
import { catalogHas } from '../../helpers/wait.js';
import { quietLog } from '../modern-client.js';
import { SseReader } from '../sse-events.js';

/**
 * A real Host with fixture servers in a temp data dir, and real gateways in front of it on
 * 127.0.0.1, for calling the dashboard's API over HTTP with `fetch`.
 */

/** A kitchen-sink fixture server entry. */
export function kitchen(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, command: process.execPath, args: [kitchenSinkBin], ...extra };
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  /** Send the session's CSRF token (default: for POST, PUT, PATCH and DELETE), or this text. */
  readonly csrf?: boolean | string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** How a client authenticates: a bearer token, or a cookie as the dashboard's browser sends it. */
export type ApiAuth = string | { readonly cookie: string };

/** The dashboard's cookie for `gateway` (auth mode `none`): what its login link sets. */
export function loginCookie(gateway: HttpGateway): { cookie: string } {
  if (gateway.localToken === undefined) throw new Error('the gateway takes no local token');
  return { cookie: `${localCookieName(Number(new URL(gateway.url).port))}=${gateway.localToken}` };
}

/** One gateway's API, as a client sees it. */
export class ApiClient {
  private csrfToken: string | undefined;

  constructor(
    readonly base: string,
    private readonly auth?: ApiAuth,
  ) {}

  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
    const headers: Record<string, string> = { ...options.headers };
    if (typeof this.auth === 'string') headers.authorization = `Bearer ${this.auth}`;
    else if (this.auth) headers.cookie = this.auth.cookie;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const csrf = options.csrf ?? method !== 'GET';
    if (csrf !== false) headers['x-switchboard-csrf'] = csrf === true ? await this.csrf() : csrf;
    return fetch(`${this.base}${path}`, {
      method,
      headers,
      ...(options.body !== undefined && {
        body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      }),
      ...(options.signal && { signal: options.signal }),
    });
  }

  /** The JSON of a request that must answer `status` (200 unless told). */
  async json<T>(path: string, options: RequestOptions = {}, status = 200): Promise<T> {
    const response = await this.request(path, options);
    const text = await response.text();
    if (response.status !== status)
      throw new Error(`${path}: expected ${status}, got ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  /** The ApiError of a request that must fail with `status`. */
  async error(path: string, options: RequestOptions, status: number): Promise<ApiError['error']> {
    return (await this.json<ApiError>(path, options, status)).error;
  }

  session(): Promise<ApiSession> {
    return this.json<ApiSession>('/api/session');
  }

  /** Opens an SSE stream; cancel it with `reader.cancel()`. */
  async stream(path: string): Promise<SseReader> {
    const response = await this.request(path, { headers: { accept: 'text/event-stream' } });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return new SseReader(response.body);
  }

  private async csrf(): Promise<string> {
    this.csrfToken ??= (await this.session()).csrfToken;
    return this.csrfToken;
  }
}

export interface ApiUnderTest {
  readonly host: Host;
  readonly dataDir: string;
  readonly gateway: HttpGateway;
  readonly api: ApiClient;
  /**
   * Another gateway in front of the same host, with other settings (auth…); `close` closes
   * it. Its client sends `auth`; default: the login cookie when it takes the local token.
   */
  gatewayWith(
    section: GatewaySection,
    auth?: ApiAuth | null,
  ): Promise<ApiClient & { close(): Promise<void> }>;
  close(): Promise<void>;
}

/** Starts `servers` in a Host, waits until `ready` is in its catalog, and serves the API. */
export async function startApiUnderTest(options: {
  readonly servers: readonly Record<string, unknown>[];
  readonly ready: readonly string[];
  readonly host?: Omit<HostOptions, 'dataDir' | 'servers'>;
  readonly gateway?: GatewaySection;
}): Promise<ApiUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'sb-api-test-'));
  const host = await Host.create({
    ...options.host,
    dataDir,
    servers: options.servers.map((s) => normalizeServerEntry(s)),
  });
  const gateways: HttpGateway[] = [];
  const open = async (section: GatewaySection) => {
    const gateway = await startHttpGateway(host, resolveGateway({ port: 0, ...section }), { log: quietLog });
    gateways.push(gateway);
    return gateway;
  };
  try {
    for (const name of options.ready) await catalogHas(host, name);
    const gateway = await open(options.gateway ?? {});
    return {
      host,
      dataDir,
      gateway,
      api: new ApiClient(new URL(gateway.url).origin, loginCookie(gateway)),
      async gatewayWith(section, auth) {
        const gateway = await open(section);
        const chosen = auth === undefined && gateway.localToken !== undefined ? loginCookie(gateway) : auth;
        return Object.assign(new ApiClient(new URL(gateway.url).origin, chosen ?? undefined), {
          close: async () => {
            gateways.splice(gateways.indexOf(gateway), 1);
            await gateway.close();
          },
        });
      },
      async close() {
        for (const g of gateways) await g.close();
        await host.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const g of gateways) await g.close();
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Reads SSE events until one named `event` whose data passes `match` (bounded). */
export async function nextEvent<T>(
  reader: SseReader,
  event: string,
  match: (data: T) => boolean = () => true,
): Promise<{ data: T; id?: string }> {
  for (let i = 0; i < 200; i++) {
    const next = await reader.next();
    if (!next) throw new Error(`the stream ended before a "${event}" event`);
    if (next.event !== event) continue;
    const data = JSON.parse(next.data) as T;
    if (match(data)) return { data, ...(next.id !== undefined && { id: next.id }) };
  }
  throw new Error(`200 events without the "${event}" event wanted`);
}
