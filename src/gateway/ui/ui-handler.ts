import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appContentSecurityPolicy, resourceUi } from '../../core/mcp-apps.js';
import { type SandboxSigner, sandboxLabelOfName } from './app-sandbox.js';

/**
 * Serves the dashboard's built files (web/, bundled into dist/web/ by `npm run build:web`,
 * which `npm install` runs) under `/ui/`. Static and public: the files hold no data; the
 * page asks the API for everything, with the user's token when the gateway wants one.
 */
export type UiHandler = (request: Request) => Promise<Response>;

export interface UiHandlerOptions {
  /** The folder of the built files; default `DEFAULT_UI_DIR`. */
  readonly dir?: string;
  /** The path the files are served under, without a trailing slash; default `/ui`. */
  readonly prefix?: string;
  /**
   * Checks the tokens of sandbox pages served under a view's own origin (app-sandbox.ts).
   * Without it, nothing is served under such an origin.
   */
  readonly sandboxSigner?: SandboxSigner;
}

const fromSource = import.meta.url.endsWith('.ts');
/** dist/web/ of the package: beside dist/gateway/ when built, under the clone's dist/ from source. */
export const DEFAULT_UI_DIR = fileURLToPath(
  new URL(fromSource ? '../../../dist/web/' : '../../web/', import.meta.url),
);

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The dashboard may load its own scripts, styles and images, and talk to its own origin only.
 * It frames nothing but MCP App sandboxes: its own page, or the same gateway under a server's
 * own name under `.localhost` (app-sandbox.ts; apps/sandbox-url.ts in web/).
 */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; " +
  "connect-src 'self'; font-src 'self'; frame-src 'self' http://*.localhost:*; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The MCP App sandbox proxy's page (web/apps/sandbox-proxy.ts) and its script. */
const SANDBOX_PAGE = 'sandbox.html';
const SANDBOX_FILES: ReadonlySet<string> = new Set([SANDBOX_PAGE, 'sandbox.js']);

/** Whether `pathname` is one of the files a view's own origin serves (host-origin.ts lets them through). */
export function isSandboxPath(pathname: string, prefix = '/ui'): boolean {
  return pathname.startsWith(`${prefix}/`) && SANDBOX_FILES.has(pathname.slice(prefix.length + 1));
}

/** An origin as the sandbox's `host` parameter must give it (the dashboard's, which frames it). */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

/**
 * The sandbox page's policy: the CSP of the view it will hold (a `srcdoc` frame inherits its
 * parent's policy). The dashboard passes the view's CSP in the query (`csp`) as the API gave
 * it; it is read back here for the origins each directive names and built again, so a URL can
 * name origins but never widen a directive otherwise, and the page is framed only by the
 * dashboard's origin (`host`).
 */
export function sandboxCsp(query: URLSearchParams): string {
  const directives = new Map<string, string[]>();
  for (const part of (query.get('csp') ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), values);
  }
  const { csp } = resourceUi({
    ui: {
      csp: {
        connectDomains: directives.get('connect-src') ?? [],
        resourceDomains: directives.get('script-src') ?? [],
        frameDomains: directives.get('frame-src') ?? [],
        baseUriDomains: directives.get('base-uri') ?? [],
      },
    },
  });
  const host = query.get('host') ?? '';
  return `${appContentSecurityPolicy(csp)}; frame-ancestors ${ORIGIN.test(host) ? host : "'none'"}; form-action 'none'`;
}

// Shown when dist/web/ is missing: a page of its own, so a browser shows the fix, not a blank.
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Switchboard: dashboard not built</title></head>
  <body>
    <h1>The dashboard is not built</h1>
    <p>Run <code>npm run build:web</code> in the Switchboard folder (<code>npm install</code> does it too), then reload.</p>
  </body>
</html>
`;

/**
 * Builds the handler. Paths with no file extension (and the prefix itself) get `index.html`,
 * so the page loads whatever route is in its URL; files outside the folder are never read.
 */
export function createUiHandler(options: UiHandlerOptions = {}): UiHandler {
  const dir = options.dir ?? DEFAULT_UI_DIR;
  const prefix = options.prefix ?? '/ui';
  return async (request) => {
    const url = new URL(request.url);
    const { pathname } = url;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return plain(405, 'The dashboard is read-only: use GET.', { allow: 'GET, HEAD' });
    }
    if (pathname === prefix) return Response.redirect(new URL(`${prefix}/${url.search}`, url), 308);
    if (!pathname.startsWith(`${prefix}/`)) return plain(404, 'Not found.');
    let rest: string;
    try {
      rest = decodeURIComponent(pathname.slice(prefix.length + 1));
    } catch {
      return plain(400, 'The path is not valid percent-encoding.');
    }
    // Anything that is not a file of the bundle is the app itself (client-side routes).
    const file = rest === '' || !extname(rest) ? 'index.html' : normalize(rest);
    // A view's own origin serves its sandbox proxy and nothing of the dashboard; the page only
    // with the policy the API issued for that server's view (app-sandbox.ts), signed in `sig`
    // (a `token` query is the local sign-in link's, local-login.ts).
    const label = sandboxLabelOfName(url.hostname);
    if (label !== undefined) {
      if (!SANDBOX_FILES.has(file) || !options.sandboxSigner) return plain(404, 'Not found.');
      const query = url.searchParams;
      if (
        file === SANDBOX_PAGE &&
        !options.sandboxSigner.verify(label, query.get('csp') ?? '', query.get('sig') ?? '')
      ) {
        return plain(
          403,
          "This sandbox page was not issued for this server's view: open the view from the dashboard, which asks the API for it.",
        );
      }
    }
    if (file.startsWith('..') || file.includes(`${sep}..`) || file.startsWith(sep) || file.includes('\0')) {
      return plain(404, 'Not found.');
    }
    let body: Buffer;
    try {
      body = await readFile(join(dir, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A folder named like a file (EISDIR) or a path through a file (ENOTDIR) is no file either.
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'ENOTDIR') throw error;
      if (file !== 'index.html') return plain(404, 'Not found.');
      return new Response(request.method === 'HEAD' ? null : NOT_BUILT_PAGE, {
        status: 503,
        headers: { 'content-type': TYPES['.html']!, 'content-security-policy': UI_CSP },
      });
    }
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), {
      headers: {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': String(body.byteLength),
        'content-security-policy': file === SANDBOX_PAGE ? sandboxCsp(url.searchParams) : UI_CSP,
      },
    });
  };
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  });
}
