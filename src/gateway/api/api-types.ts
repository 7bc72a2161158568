/**
 * The JSON the dashboard's HTTP API (`/api`) speaks: what each route answers and accepts.
 * Types only, so the dashboard (web/) imports them too and both ends agree at compile time.
 * Dates travel as ISO-8601 text. Every route and shape is described in the OpenAPI document
 * at `GET /api/openapi.json`.
 *
 * Routes (all JSON unless marked SSE; state-changing ones need the CSRF header, see below):
 *
 *   GET    /api/session                      → ApiSession
 *   GET    /api/openapi.json                 → the OpenAPI 3.1 document
 *   GET    /api/servers                      → { servers: ApiServer[] }
 *   POST   /api/servers                      { name, entry } → ApiServer (201); 409 if it exists
 *   GET    /api/servers/{name}               → ApiServer & { entry }
 *   PUT    /api/servers/{name}               { entry } → ApiServer (replaces the entry)
 *   DELETE /api/servers/{name}               → 204
 *   POST   /api/servers/{name}/enable        → ApiServer
 *   POST   /api/servers/{name}/disable       → ApiServer
 *   POST   /api/servers/{name}/reload        → ApiServer
 *   GET    /api/tools?server=&q=             → { tools: ApiTool[] }
 *   GET    /api/tools/{name}                 → ApiTool (name: the catalog name mcp__s__t)
 *   POST   /api/tools/{name}/call            { arguments } → ApiCallResult
 *   GET    /api/resources?server=            → { resources: ApiResource[], templates: ApiResourceTemplate[] }
 *   GET    /api/resources/read?uri=&server= → { contents: ApiContent[] } (server: only if the URI is ambiguous)
 *   GET    /api/prompts?server=              → { prompts: ApiPrompt[] }
 *   POST   /api/prompts/{server}/{name}      { arguments } → { description?, messages: ApiPromptMessage[] }
 *   GET    /api/inbox                        → { items: ApiInboxItem[] }
 *   POST   /api/inbox/{id}                   ApiInboxAnswer → { id, action, always }
 *   GET    /api/events?server=&before=&limit= → ApiPage<ApiEvent>
 *   GET    /api/logs/{server}?lines=N        → { server, file, lines: ApiLogLine[] }
 *   GET    /api/logs/{server}/follow         SSE: `log` events (ApiLogLine), after the last N lines
 *   GET    /api/audit?server=&actor=&action=&outcome=&since=&until=&before=&limit= → ApiPage<ApiAuditEntry>
 *   GET    /api/metrics/calls?server=        → ApiCallStats (recent tool calls per server, for the charts)
 *   GET    /api/stream                       SSE: ApiStreamEvent (first a `servers` and an `inbox` snapshot,
 *                                             then the current `catalog` etag)
 *   GET    /media/{id}.{ext}                 the saved media file (images and audio of results)
 *
 * Errors: any status ≥ 400 has the body ApiError.
 *
 * CSRF: POST, PUT, PATCH and DELETE need the header `X-Switchboard-CSRF` with the token of
 * `GET /api/session`, unless the request carries `Authorization` (a bearer token is not sent by
 * a browser on its own, so it cannot be forged by another page).
 */

export type ApiServerState =
  | 'connecting'
  | 'connected'
  | 'reconnecting'
  | 'needs_auth'
  | 'failed'
  | 'disabled';

export interface ApiSession {
  /** Who the API sees: `anonymous` on loopback without auth, else the token's or JWT's id. */
  readonly principal: string;
  readonly csrfToken: string;
  /** The MCP endpoint of this gateway, e.g. `http://127.0.0.1:7777/mcp`. */
  readonly mcpUrl: string;
  readonly version: string;
  /** Whether this principal may add, change and remove servers. */
  readonly canManage: boolean;
}

export interface ApiServer {
  readonly name: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly state: ApiServerState;
  readonly enabled: boolean;
  readonly protocolVersion?: string;
  readonly tools: number;
  readonly resources: number;
  readonly prompts: number;
  /** Where the entry comes from: a config file's path, or `api` / `store` for added ones. */
  readonly source: string;
  /** Whether the entry can be changed or removed here (config-file entries can only be toggled). */
  readonly editable: boolean;
  readonly description?: string;
  /** A local server's sandbox in force: "off", or its profile and what it grants. */
  readonly sandbox?: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** What to do about a server that is not connected, in a few words. */
  readonly hint?: string;
  readonly rejectedTools: readonly {
    readonly tool: string;
    readonly reason: string;
    readonly detail: string;
  }[];
  /**
   * Lists the server cut short (only when some were): `page-cap`, it still had pages after the
   * page cap; `cursor-loop`, it handed back a cursor already followed. It offers more than shown.
   */
  readonly incompleteLists?: readonly {
    readonly kind: 'tools' | 'resources' | 'prompts';
    readonly reason: 'page-cap' | 'cursor-loop';
    readonly pages: number;
    readonly items: number;
  }[] /**
   * With replicas (docs/replicas.md): the server's state on each live replica, this one
   * included. Each replica connects to its servers on its own.
   */;
  readonly replicas?: readonly ApiReplicaServer[];
}

/** One replica's view of a server. */
export interface ApiReplicaServer {
  /** The replica, by the URL the other replicas reach it at. */
  readonly replica: string;
  /** Whether it is the replica that answered this request. */
  readonly self: boolean;
  readonly state: ApiServerState;
  readonly tools: number;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface ApiTool {
  /** The catalog name, `mcp__<server>__<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The server's own name for it. */
  readonly tool: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /** What its MCP Apps `_meta.ui` says, when it has one: its view and who may call it. */
  readonly app?: ApiToolApp;
}

/** A tool's MCP App: the `ui://` view its results render with, and who may call it. */
export interface ApiToolApp {
  readonly resourceUri?: string;
  readonly visibility: readonly ('model' | 'app')[];
}

/** A content part as the dashboard shows it: media is saved and referenced by URL. */
export type ApiContent =
  | { readonly type: 'text'; readonly text: string; readonly uri?: string; readonly mimeType?: string }
  | {
      readonly type: 'image' | 'audio' | 'blob';
      readonly mimeType: string;
      /** `/media/<id>.<ext>`, served by this process. */
      readonly url: string;
      readonly bytes: number;
      readonly uri?: string;
    }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    };

export interface ApiCallResult {
  readonly isError: boolean;
  readonly content: readonly ApiContent[];
  readonly structuredContent?: unknown;
  /** How long the call took, end to end (approval wait included). */
  readonly ms: number;
  /**
   * The tool's MCP App, when it has a view: the server whose view renders the result (and
   * whose tools the view may call back), its `ui://` URI, the call's input and the result as
   * the server returned it (what the view is sent).
   */
  readonly app?: ApiResultApp;
}

/** What a dashboard needs to render a result in its tool's view. */
export interface ApiResultApp {
  readonly server: string;
  readonly tool: string;
  readonly resourceUri: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly result: Readonly<Record<string, unknown>>;
}

/** A view ready for the sandbox: its HTML and the policy it runs under (`GET /api/apps/view`). */
export interface ApiAppView {
  readonly server: string;
  readonly uri: string;
  readonly html: string;
  /** The Content-Security-Policy its document runs under (declared origins only). */
  readonly csp: string;
  /** The inner frame's `allow` attribute. */
  readonly allow: string;
  readonly prefersBorder?: boolean;
  /**
   * The view's own origin: its server's domain under `.localhost` (the dashboard frames the
   * sandbox there when it is opened on a loopback name) and the token its sandbox page is
   * served with (it binds the domain and `csp`).
   */
  readonly sandbox: { readonly domain: string; readonly token: string };
  /** The dedicated domain the view declared (`_meta.ui.domain`), if any. */
  readonly domain?: string;
  /** Whether the view runs at the domain it declared (present when it declared one). */
  readonly domainHonoured?: boolean;
  /** Where the view runs instead and why (present when it declared a domain). */
  readonly domainNotice?: string;
}

/** A tool with a view, for the Apps page (`GET /api/apps`). */
export interface ApiApp {
  readonly name: string;
  readonly server: string;
  readonly tool: string;
  readonly title?: string;
  readonly description?: string;
  readonly resourceUri: string;
  /** This caller's last result of the tool, to open the view with, if it called it. */
  readonly last?: ApiResultApp & { readonly at: string };
}

export interface ApiResource {
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

export interface ApiResourceTemplate {
  readonly server: string;
  readonly uriTemplate: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

export interface ApiPrompt {
  readonly server: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly {
    readonly name: string;
    readonly description?: string;
    readonly required?: boolean;
  }[];
}

export interface ApiPromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: ApiContent;
}

/** A pending approval or elicitation (host/inbox/inbox.ts `InboxItem`, dates as text). */
export interface ApiInboxItem {
  readonly id: string;
  readonly kind: 'approval' | 'elicitation';
  readonly server: string;
  readonly tool?: string;
  readonly session?: string;
  /** Approval: the masked argument preview. Elicitation: the server's message. */
  readonly preview: string;
  readonly reason?: string;
  readonly mode?: 'form' | 'url';
  /** The elicitation's form: a flat JSON Schema object of strings, numbers, booleans, enums. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** Fields to show as password inputs, never echoed. */
  readonly secretFields?: readonly string[];
  readonly url?: string;
  /** With replicas: the replica whose call waits for it, when not this one (its URL). */
  readonly replica?: string;
  readonly createdAt: string;
  readonly deadline: string;
}

export interface ApiInboxAnswer {
  readonly action: 'accept' | 'decline';
  /** Approvals: allow this tool from now on ("always allow"). */
  readonly always?: boolean;
  /** Accepted elicitation forms: the answers. */
  readonly content?: Readonly<Record<string, unknown>>;
}

export interface ApiEvent {
  readonly id: number;
  readonly server: string;
  readonly method: string;
  readonly params: unknown;
  readonly receivedAt: string;
}

export interface ApiLogLine {
  readonly at?: string;
  readonly source?: string;
  readonly level?: string;
  readonly text: string;
}

export interface ApiAuditEntry {
  readonly id: number;
  readonly at: string;
  readonly server: string | null;
  readonly actor: string | null;
  readonly action: string;
  readonly outcome: string | null;
  readonly details: unknown;
}

/** A page, newest first: pass `nextCursor` as `before` for the next one. */
export interface ApiPage<T> {
  readonly items: readonly T[];
  readonly nextCursor?: number;
}

/** What `GET /api/stream` sends, as SSE `event:` name and JSON `data:`. */
export type ApiStreamEvent =
  | { readonly event: 'servers'; readonly data: { readonly servers: readonly ApiServer[] } }
  | { readonly event: 'inbox'; readonly data: { readonly items: readonly ApiInboxItem[] } }
  | { readonly event: 'catalog'; readonly data: { readonly etag: string } }
  | { readonly event: 'event'; readonly data: ApiEvent };

export interface ApiError {
  readonly error: {
    /**
     * Stable, e.g. NOT_FOUND, INVALID_REQUEST, CSRF_REQUIRED, FORBIDDEN, SERVER_UNAVAILABLE,
     * ALREADY_EXISTS, NOT_EDITABLE, METHOD_NOT_ALLOWED, UNAUTHORIZED, RATE_LIMITED,
     * PAYLOAD_TOO_LARGE, INTERNAL, or the host's own code (e.g. APPROVAL_DECLINED).
     */
    readonly code: string;
    /** What went wrong and what to do about it. */
    readonly message: string;
    readonly details?: unknown;
  };
}

/** One slot of a server's recent calls (`GET /api/metrics/calls`). */
export interface ApiCallPoint {
  /** The slot's start, ms since the epoch. */
  readonly t: number;
  /** Calls answered in the slot (successes and errors; refusals apart). */
  readonly calls: number;
  /** Of those, failed or `isError` results. */
  readonly errors: number;
  /** Calls policy denied or a person declined. */
  readonly refused: number;
  /** Latency percentiles in ms (a log-scale bin's upper edge: at most 25 % high); null without calls. */
  readonly p50: number | null;
  readonly p99: number | null;
}

/** Recent tool calls per server, kept in process whether or not OpenTelemetry is on. */
export interface ApiCallStats {
  readonly slotSeconds: number;
  /** When the snapshot was taken, ms since the epoch. */
  readonly now: number;
  readonly servers: readonly {
    readonly server: string;
    /** Every slot of the window, oldest first. */
    readonly points: readonly ApiCallPoint[];
    readonly lastMinute: {
      readonly calls: number;
      /** Calls per second. */
      readonly rate: number;
      /** Errors over answered calls, 0..1; null without calls. */
      readonly errorRate: number | null;
      readonly p50: number | null;
      readonly p99: number | null;
    };
  }[];
}
