import {
  EXTENSION_ID,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server';

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, revision 2026-01-26) as
 * data: what a client declares, what `_meta.ui` says on a tool (its view, who may call it)
 * and on a UI resource (what its sandbox may load). Pure and lenient: a server's malformed
 * `_meta` never fails a list, it reads as the safest thing it could mean (a visibility that is
 * not a list of audiences hides the tool from the model; a CSP source that is not an origin
 * is dropped, never loosening the policy, spec §UI Resource Format, "No Loosening").
 *
 * The constants come from `@modelcontextprotocol/ext-apps/server`. Its host helpers
 * (`getToolUiResourceUri`, `isToolVisibilityAppOnly` in `app-bridge`) are not used here: the
 * first throws on a resource URI that is not `ui://` (one bad tool would fail a whole catalog)
 * and the second reads a visibility that is not an array as "model and app", where a server
 * that meant `"app"` would have its tool offered to the model.
 */

/** The extension's identifier, under `capabilities.extensions` (SEP-1724). */
export const APPS_EXTENSION = EXTENSION_ID;
/** The MIME type of an app's HTML resource. */
export const APP_MIME_TYPE = RESOURCE_MIME_TYPE;
/** The deprecated flat key for a tool's view, still read (spec §Resource Discovery). */
export const LEGACY_RESOURCE_URI_KEY = RESOURCE_URI_META_KEY;

/** Who may see and call a tool (spec §Visibility). */
export type ToolAudience = 'model' | 'app';

/** What `_meta.ui` says of a tool. */
export interface ToolUi {
  /** The `ui://` resource that renders the tool's results, if any. */
  readonly resourceUri?: string;
  /** Who may call it; `["model", "app"]` when the server says nothing. */
  readonly visibility: readonly ToolAudience[];
}

/** The CSP domains an app's resource declares, only the entries that are origins. */
export interface AppCsp {
  readonly connectDomains: readonly string[];
  readonly resourceDomains: readonly string[];
  readonly frameDomains: readonly string[];
  readonly baseUriDomains: readonly string[];
}

/** Browser capabilities an app asks for (Permission Policy features). */
export type AppPermission = 'camera' | 'microphone' | 'geolocation' | 'clipboardWrite';

/** What `_meta.ui` says of a UI resource, read from its `resources/read` content (or list entry). */
export interface ResourceUi {
  readonly csp: AppCsp;
  readonly permissions: readonly AppPermission[];
  /** A dedicated sandbox origin the app asks for (host-dependent: gateway/ui/app-sandbox.ts answers it). */
  readonly domain?: string;
  readonly prefersBorder?: boolean;
}

const DEFAULT_VISIBILITY: readonly ToolAudience[] = ['model', 'app'];
const PERMISSIONS: readonly AppPermission[] = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The extension's settings a client declares: it renders `text/html;profile=mcp-app`. */
export function appsClientCapability(): { mimeTypes: string[] } {
  return { mimeTypes: [APP_MIME_TYPE] };
}

/**
 * Whether `capabilities` (a client's) declare MCP Apps with the HTML profile (spec §Client
 * (Host) Capabilities: `mimeTypes` is required). A client that declares the extension without
 * the MIME type renders nothing of ours.
 */
export function declaresApps(capabilities: unknown): boolean {
  if (!isRecord(capabilities) || !isRecord(capabilities.extensions)) return false;
  const ui = capabilities.extensions[APPS_EXTENSION];
  return isRecord(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(APP_MIME_TYPE);
}

/** Whether `uri` is an app's resource URI (the `ui://` scheme is reserved for MCP Apps). */
export function isAppUri(uri: unknown): uri is string {
  return typeof uri === 'string' && uri.startsWith('ui://') && uri.length > 'ui://'.length;
}

/** What a tool's `_meta.ui` says; the nested `resourceUri` wins over the deprecated flat key. */
export function toolUi(tool: { readonly _meta?: unknown }): ToolUi {
  const meta = isRecord(tool._meta) ? tool._meta : undefined;
  const ui = meta && isRecord(meta.ui) ? meta.ui : undefined;
  const nested = ui?.resourceUri;
  const flat = meta?.[LEGACY_RESOURCE_URI_KEY];
  const resourceUri = isAppUri(nested) ? nested : isAppUri(flat) ? flat : undefined;
  return {
    ...(resourceUri !== undefined && { resourceUri }),
    visibility: visibilityOf(ui),
  };
}

function visibilityOf(ui: Record<string, unknown> | undefined): readonly ToolAudience[] {
  if (ui === undefined || !('visibility' in ui) || ui.visibility === undefined) return DEFAULT_VISIBILITY;
  const raw = typeof ui.visibility === 'string' ? [ui.visibility] : ui.visibility;
  if (!Array.isArray(raw)) return [];
  return DEFAULT_VISIBILITY.filter((a) => raw.includes(a));
}

/** Whether a model may see and call the tool: its visibility includes `"model"`. */
export function isModelVisible(tool: { readonly _meta?: unknown }): boolean {
  // The common case (no `_meta.ui` at all) without building a ToolUi.
  if (!isRecord(tool._meta) || tool._meta.ui === undefined) return true;
  return toolUi(tool).visibility.includes('model');
}

/** Whether an app of the tool's own server may call it: its visibility includes `"app"`. */
export function isAppVisible(tool: { readonly _meta?: unknown }): boolean {
  return toolUi(tool).visibility.includes('app');
}

/**
 * A CSP source a resource may declare: a scheme (http, https, ws, wss), a host (an optional
 * leading `*.` wildcard), an optional port. Anything else — `*`, keywords, paths, a `;` that
 * would start another directive — is dropped.
 */
const ORIGIN_SOURCE =
  /^(https?|wss?):\/\/(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:(\d{1,5}|\*))?$/i;

function origins(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && ORIGIN_SOURCE.test(v));
}

/** What a UI resource's `_meta.ui` says (`meta` is the content's or list entry's `_meta`). */
export function resourceUi(meta: unknown): ResourceUi {
  const ui = isRecord(meta) && isRecord(meta.ui) ? meta.ui : {};
  const csp = isRecord(ui.csp) ? ui.csp : {};
  const permissions = isRecord(ui.permissions) ? ui.permissions : {};
  return {
    csp: {
      connectDomains: origins(csp.connectDomains),
      resourceDomains: origins(csp.resourceDomains),
      frameDomains: origins(csp.frameDomains),
      baseUriDomains: origins(csp.baseUriDomains),
    },
    permissions: PERMISSIONS.filter((p) => permissions[p] !== undefined && permissions[p] !== false),
    ...(typeof ui.domain === 'string' && { domain: ui.domain }),
    ...(typeof ui.prefersBorder === 'boolean' && { prefersBorder: ui.prefersBorder }),
  };
}

/**
 * The Content-Security-Policy an app's document runs under: the spec's restrictive default,
 * widened only by the origins the resource declared (spec §Security Implications,
 * "CSP Construction from Metadata"; `connect-src` is `'none'` unless declared, as in the
 * restrictive default, so an app reaches no network it did not name). One addition to the
 * spec's template: scripts and workers from `blob:` and `data:` URLs, code the view already
 * holds (the ext-apps reference host allows them too; no network origin comes with them).
 */
export function appContentSecurityPolicy(csp: AppCsp): string {
  const list = (values: readonly string[]) => (values.length > 0 ? ` ${values.join(' ')}` : '');
  const res = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    // `blob:` and `data:` are code the view already holds (it has 'unsafe-inline' anyway): a
    // bundle that starts its worker or a module from one (PDF.js does) runs; no origin is added.
    `script-src 'self' 'unsafe-inline' blob: data:${res}`,
    `style-src 'self' 'unsafe-inline'${res}`,
    `img-src 'self' data:${res}`,
    `font-src 'self'${res}`,
    `media-src 'self' data:${res}`,
    `connect-src ${csp.connectDomains.length > 0 ? csp.connectDomains.join(' ') : "'none'"}`,
    `worker-src 'self' blob: data:${res}`,
    `frame-src ${csp.frameDomains.length > 0 ? csp.frameDomains.join(' ') : "'none'"}`,
    "object-src 'none'",
    `base-uri ${csp.baseUriDomains.length > 0 ? csp.baseUriDomains.join(' ') : "'self'"}`,
  ].join('; ');
}

/** The iframe `allow` attribute for granted permissions (Permission Policy feature names). */
export function appAllowAttribute(permissions: readonly AppPermission[]): string {
  return permissions.map((p) => (p === 'clipboardWrite' ? 'clipboard-write' : p)).join('; ');
}

/**
 * A tool definition as a client that does not speak MCP Apps is served it: `_meta.ui` and the
 * deprecated flat key removed (its other `_meta` kept as it is). The same object when there is
 * nothing to remove.
 */
export function withoutUiMeta<T extends { readonly _meta?: unknown }>(tool: T): T {
  const meta = tool._meta;
  if (!isRecord(meta) || (!('ui' in meta) && !(LEGACY_RESOURCE_URI_KEY in meta))) return tool;
  const { ui: _ui, [LEGACY_RESOURCE_URI_KEY]: _flat, ...rest } = meta;
  const { _meta: _old, ...bare } = tool as T & { _meta?: unknown };
  return (Object.keys(rest).length > 0 ? { ...bare, _meta: rest } : bare) as T;
}
