import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.js';
import {
  APP_MIME_TYPE,
  appAllowAttribute,
  appContentSecurityPolicy,
  isAppUri,
  type ResourceUi,
  resourceUi,
  toolUi,
} from '../../core/mcp-apps.js';
import type { CatalogSnapshot, CatalogTool } from '../catalog/catalog.js';

/**
 * MCP Apps on the host side: which catalog tools have a view, and each view's document read
 * from its server and checked (SEP-1865 §UI Resource Format: a `ui://` URI, the
 * `text/html;profile=mcp-app` type, text or base64 blob), with the sandbox settings its
 * `_meta.ui` asks for turned into the CSP and `allow` a renderer applies. Views are kept by
 * definition: read once per server, URI and the definitions of the tools that name it, so a
 * tool re-listed unchanged costs no read, and a changed one is read again (spec §Resource
 * Discovery: hosts "MAY prefetch and cache UI resource content").
 */

/** A tool's view: the reference an embedding UI renders a result of the tool with. */
export interface AppReference {
  /** The server whose resource it is, and whose tools the view may call back. */
  readonly server: string;
  /** The catalog name of the tool the view belongs to. */
  readonly tool: string;
  readonly resourceUri: string;
}

/** A view ready to render: its HTML, what it declared, and the policy it runs under. */
export interface AppView {
  readonly server: string;
  readonly uri: string;
  readonly html: string;
  /** `_meta.ui` of the resource (content item first, list entry as fallback), sanitized. */
  readonly ui: ResourceUi;
  /** The Content-Security-Policy of the view's document (core/mcp-apps.ts). */
  readonly csp: string;
  /** The inner iframe's `allow` attribute, from the permissions it asked for. */
  readonly allow: string;
}

/** Largest view document accepted (an app is a page, not a data set). */
export const APP_VIEW_MAX_BYTES = 5 * 1024 * 1024;

/** The app reference of a catalog tool, or undefined when it has no view. */
export function appReferenceOf(tool: CatalogTool): AppReference | undefined {
  const { resourceUri } = toolUi(tool.tool);
  return resourceUri === undefined ? undefined : { server: tool.server, tool: tool.name, resourceUri };
}

/** What reading views needs of the host. */
export interface AppViewDeps {
  catalog(): CatalogSnapshot;
  /** Reads a resource from `server` as it is (audited, not guarded: HTML is not for a model). */
  read(server: string, uri: string): Promise<ReadResourceResult>;
}

export class AppViews {
  /** Reads by server, URI and naming definitions; bounded, oldest first out. */
  private readonly kept = new Map<string, Promise<AppView>>();

  constructor(private readonly deps: AppViewDeps) {}

  /**
   * The view `uri` of `server`. NOT_FOUND when no served tool of `server` names it (a view is
   * reached through its tool: spec §Resource Discovery), UPSTREAM_PROTOCOL when what the server
   * returns is not an app document.
   */
  view(server: string, uri: string): Promise<AppView> {
    const catalog = this.deps.catalog();
    const naming = catalog.tools.filter((t) => t.server === server && toolUi(t.tool).resourceUri === uri);
    if (!isAppUri(uri) || naming.length === 0) {
      return Promise.reject(
        new SwitchboardError(
          'NOT_FOUND',
          `Server "${server}" has no tool whose view is "${uri}". List its tools with their app (switchboard tools ${server}) and open one of those.`,
          { details: { server, uri } },
        ),
      );
    }
    const key = `${server}\u0000${uri}\u0000${naming.map((t) => t.hash).join(',')}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const listed = catalog.resources.find((r) => r.server === server && r.item.uri === uri)?.item;
    const reading = this.deps.read(server, uri).then((result) => viewOf(server, uri, result, listed?._meta));
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, reading);
    // A failed read is not kept: the next open tries again.
    reading.catch(() => {
      if (this.kept.get(key) === reading) this.kept.delete(key);
    });
    return reading;
  }
}

const MAX_KEPT = 256;

/** The view in a `resources/read` answer, checked. Pure. */
export function viewOf(
  server: string,
  uri: string,
  result: ReadResourceResult,
  listedMeta?: unknown,
): AppView {
  const item = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
  const refuse = (what: string) =>
    new SwitchboardError(
      'UPSTREAM_PROTOCOL',
      `Server "${server}" answered the view "${uri}" with ${what}; an MCP App view is one ${APP_MIME_TYPE} document (SEP-1865). Ask the server's author to fix the resource.`,
      { details: { server, uri } },
    );
  if (!item) throw refuse('no contents');
  if (item.mimeType !== APP_MIME_TYPE) throw refuse(`type ${JSON.stringify(item.mimeType ?? null)}`);
  const html =
    'text' in item && typeof item.text === 'string'
      ? item.text
      : 'blob' in item && typeof item.blob === 'string'
        ? Buffer.from(item.blob, 'base64').toString('utf8')
        : undefined;
  if (html === undefined) throw refuse('neither text nor blob');
  if (Buffer.byteLength(html) > APP_VIEW_MAX_BYTES)
    throw refuse(`a document over ${APP_VIEW_MAX_BYTES} bytes`);
  // The content item's `_meta.ui` is what counts; the list entry's only when it has none.
  const own = item._meta as Record<string, unknown> | undefined;
  const ui = resourceUi(own?.ui !== undefined ? own : listedMeta);
  return {
    server,
    uri,
    html,
    ui,
    csp: appContentSecurityPolicy(ui.csp),
    allow: appAllowAttribute(ui.permissions),
  };
}
