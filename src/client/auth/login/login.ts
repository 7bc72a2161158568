import { SwitchboardError } from '../../../core/errors.js';
import { startLoopbackListener } from './loopback-listener.js';
import { openBrowser as defaultOpenBrowser } from './open-browser.js';

/**
 * An interactive OAuth login: a loopback listener is the redirect target, the authorization
 * URL is opened in the browser (or printed), and the flow completes with whichever comes
 * first — the browser arriving at the listener, or the redirect URL pasted by the user (a
 * headless machine: the browser runs elsewhere and its address bar shows the URL that could
 * not load). `state`, `iss` and error responses are handled by `flow.complete`, never here.
 */

/** The two halves of an authorization-code flow, from the OAuth client. */
export interface LoginFlow {
  /** Starts authorization for `redirectUri`; returns the URL to send the user to. */
  start(redirectUri: string): Promise<URL>;
  /** Completes with the URL the browser was sent back to. */
  complete(redirectUrl: URL): Promise<void>;
}

export interface LoginOptions {
  /** Open the browser (default true); false prints the URL only (`--no-browser`). */
  readonly browser?: boolean;
  /** Where instructions go (a terminal's stderr). */
  readonly print: (line: string) => void;
  /** Lines the user types: a pasted redirect URL completes the login (headless machines). */
  readonly pasted?: AsyncIterable<string>;
  /** How long to wait for the browser or a paste. Default 5 minutes. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Replaces the platform opener (tests). */
  readonly openBrowser?: (url: string) => Promise<boolean>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** Runs the login; resolves when credentials are stored, rejects with a clear error otherwise. */
export async function runLogin(flow: LoginFlow, options: LoginOptions): Promise<void> {
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const listener = await startLoopbackListener({ signal: abort.signal });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = await flow.start(listener.redirectUri);
    const opened = options.browser !== false && (await (options.openBrowser ?? defaultOpenBrowser)(url.href));
    options.print(opened ? 'Opened the browser to sign in. If it did not open, visit:' : 'Sign in at:');
    options.print(`  ${url.href}`);
    if (options.pasted) {
      options.print('On another machine? After signing in, paste the URL the browser ends on here.');
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new SwitchboardError(
              'REQUEST_TIMEOUT',
              `No sign-in within ${Math.round(timeoutMs / 1000)} s. Run the login again.`,
            ),
          ),
        timeoutMs,
      );
      timer.unref();
    });
    const redirect = await Promise.race([
      listener.redirect,
      ...(options.pasted ? [firstRedirectUrl(options.pasted, options.print, abort.signal)] : []),
      timeout,
    ]);
    // An error redirect goes to `complete` too: it checks `iss` before it believes an error
    // (RFC 9207 §2.4), and turns the error into one that names it.
    await flow.complete(redirect);
  } finally {
    clearTimeout(timer);
    abort.abort();
    options.signal?.removeEventListener('abort', onAbort);
    await listener.close();
  }
}

/** The first pasted line that is a redirect URL (with `code` or `error`); other lines get a hint. */
async function firstRedirectUrl(
  lines: AsyncIterable<string>,
  print: (line: string) => void,
  signal: AbortSignal,
): Promise<URL> {
  for await (const line of lines) {
    if (signal.aborted) break;
    const text = line.trim();
    if (text === '') continue;
    try {
      const url = new URL(text);
      if (url.searchParams.has('code') || url.searchParams.has('error')) return url;
    } catch {
      // not a URL: fall through to the hint
    }
    print('That is not the redirect URL. Paste the whole URL from the address bar (it holds "code=").');
  }
  // Input ended without a URL: wait for the browser (or the timeout) instead.
  return new Promise<URL>(() => undefined);
}
