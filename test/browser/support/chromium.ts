import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

/**
 * A real headless Chromium for the browser tests, on a fresh profile that is removed
 * afterwards. Everything the page logs as an error (a script error, a CSP violation, a failed
 * request) is collected, so a test can require a clean console.
 */
export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and uncaught page errors, in order. */
  readonly errors: readonly string[];
  close(): Promise<void>;
}

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Bounds every Playwright wait, so a broken page fails the test instead of hanging it. */
export const WAIT_MS = 20_000;

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium is not at ${path}. Install it ("apt-get install chromium" on Debian/Ubuntu) or set ` +
        'CHROMIUM_PATH to a Chromium or Chrome binary, then run "npm run test:browser" again.',
    );
  }
  return path;
}

export async function openBrowser(
  options: {
    readonly colorScheme?: 'light' | 'dark';
    /**
     * Let frames of other sites keep storage (partitioned by the top site), as Chrome's
     * default settings do; this Chromium's profile otherwise blocks it, as browsers that block
     * third-party cookies do. Default: the browser's own setting.
     */
    readonly thirdPartyStorage?: boolean;
  } = {},
): Promise<BrowserSession> {
  const executablePath = chromiumPath();
  const profile = await mkdtemp(join(tmpdir(), 'sb-chromium-'));
  if (options.thirdPartyStorage) {
    await mkdir(join(profile, 'Default'));
    // cookie_controls_mode 0: third-party cookies and site data allowed.
    await writeFile(
      join(profile, 'Default', 'Preferences'),
      JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
    );
  }
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
      timeout: 60_000,
    });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  context.setDefaultTimeout(WAIT_MS);
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '../../../test-results/browser');

/** Saves the page as `test-results/browser/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The natural width of an `<img>`: above 0 once it loaded and decoded, 0 while loading or broken. */
export function naturalWidth(image: Locator): Promise<number> {
  // Runs in the page; the cast stands in for the DOM types this (Node) project does not load.
  return image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
}
