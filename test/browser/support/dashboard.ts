import type { Page } from 'playwright-core';
import { type BrowserSession, openBrowser } from './chromium.js';
import { type RunningSwitchboard, startSwitchboard } from './switchboard-process.js';

/**
 * One browser test file's world: a running `switchboard start`, a Chromium on its dashboard,
 * and `close()` that ends both. `open(hash)` loads a page of the dashboard and waits until its
 * live stream is connected.
 */
export interface Dashboard {
  readonly switchboard: RunningSwitchboard;
  readonly browser: BrowserSession;
  readonly page: Page;
  /** Loads `hash` in a fresh document; waits for the live stream unless `live` is false. */
  open(hash?: string, options?: { readonly live?: boolean }): Promise<void>;
  /** Opens the Servers page and waits until each of `servers` shows "connected". */
  untilConnected(servers: readonly string[]): Promise<void>;
  /** `fetch` of the API from inside the page (same origin, so same cookies and CSRF rules). */
  api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export interface DashboardOptions {
  readonly colorScheme?: 'light' | 'dark';
  /** Frames of other sites keep storage (chromium.ts); default the browser's own setting. */
  readonly thirdPartyStorage?: boolean;
  /** What to run; default `switchboard start` (the demo). */
  readonly run?: () => Promise<RunningSwitchboard>;
}

export async function openDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const switchboard = await (options.run ?? startSwitchboard)();
  let browser: BrowserSession;
  try {
    browser = await openBrowser({
      ...(options.colorScheme && { colorScheme: options.colorScheme }),
      ...(options.thirdPartyStorage && { thirdPartyStorage: true }),
    });
  } catch (error) {
    await switchboard.stop();
    throw error;
  }
  const { page } = browser;
  // Signed in once, as a person does with the link start prints: the cookie lasts the context.
  if (switchboard.loginUrl) {
    try {
      await page.goto(switchboard.loginUrl);
    } catch (error) {
      await browser.close().finally(() => switchboard.stop());
      throw error;
    }
  }
  return {
    switchboard,
    browser,
    page,
    open: async (hash = '', openOptions = {}) => {
      // A fresh document each time: going to another hash of the same page would keep its state.
      await page.goto('about:blank');
      await page.goto(`${switchboard.dashboardUrl}${hash}`);
      if (openOptions.live !== false)
        await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    },
    untilConnected: async (servers) => {
      await page.goto('about:blank');
      await page.goto(`${switchboard.dashboardUrl}#/servers`);
      // Servers start in parallel; the slowest may take a while on a busy machine.
      for (const name of servers)
        await page
          .locator(`[data-testid="server-${name}"][data-state="connected"]`)
          .waitFor({ timeout: 60_000 });
    },
    api: async <T>(method: string, path: string, body?: unknown) => {
      // Runs in the page: a string body keeps the page-side code free of Node types.
      const script = `(async ({ method, path, body }) => {
        const session = await (await fetch('/api/session')).json();
        const response = await fetch(path, {
          method,
          headers: { 'content-type': 'application/json', 'x-switchboard-csrf': session.csrfToken },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined };
      })`;
      return page.evaluate(`${script}(${JSON.stringify({ method, path, body })})`) as Promise<{
        status: number;
        body: T;
      }>;
    },
    close: async () => {
      try {
        await browser.close();
      } finally {
        await switchboard.stop();
      }
    },
  };
}
