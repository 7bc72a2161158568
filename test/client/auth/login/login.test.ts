import { describe, expect, it } from 'vitest';
import { type LoginFlow, runLogin } from '../../../../src/client/auth/login/login.js';

/** The interactive login against a real loopback listener; the "browser" is fetch. */

function flowThatRedirects(params: Record<string, string>) {
  const completed: URL[] = [];
  let redirectUri = '';
  const flow: LoginFlow = {
    async start(uri) {
      redirectUri = uri;
      const url = new URL('https://as.example.com/authorize');
      url.searchParams.set('redirect_uri', uri);
      return url;
    },
    async complete(url) {
      completed.push(url);
    },
  };
  const back = () => {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  };
  return { flow, completed, back };
}

async function* lines(...items: string[]): AsyncGenerator<string> {
  for (const item of items) yield item;
}

describe('runLogin', () => {
  it('completes when the browser comes back to the loopback listener', async () => {
    const { flow, completed, back } = flowThatRedirects({ code: 'c1', state: 's1' });
    const printed: string[] = [];
    let opened = '';
    let page = '';
    await runLogin(flow, {
      print: (l) => printed.push(l),
      openBrowser: async (url) => {
        opened = url;
        // The "browser": the authorization server sends it straight back to the listener.
        page = await (await fetch(back())).text();
        return true;
      },
    });
    expect(opened).toMatch(
      /^https:\/\/as\.example\.com\/authorize\?redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Foauth%2Fcallback$/,
    );
    expect(completed).toHaveLength(1);
    expect(completed[0]!.searchParams.get('code')).toBe('c1');
    expect(completed[0]!.searchParams.get('state')).toBe('s1');
    expect(printed[0]).toMatch(/^Opened the browser/);
    // The listener is gone once the login is over.
    const port = new URL(completed[0]!.href).port;
    await expect(fetch(`http://127.0.0.1:${port}/callback?code=x`)).rejects.toThrow();
    expect(page).toContain('You can close this tab');
  });

  it('completes with a pasted redirect URL on a headless machine, hinting at wrong lines', async () => {
    const { flow, completed } = flowThatRedirects({});
    const printed: string[] = [];
    await runLogin(flow, {
      browser: false,
      print: (l) => printed.push(l),
      pasted: lines('', 'not a url', 'http://127.0.0.1:1/callback?code=pasted&state=s2'),
    });
    expect(completed.map((u) => u.searchParams.get('code'))).toEqual(['pasted']);
    expect(printed[0]).toBe('Sign in at:');
    expect(printed.filter((l) => l.startsWith('That is not the redirect URL'))).toHaveLength(1);
  });

  it('hands an error redirect to the flow, which judges it', async () => {
    const { flow, completed } = flowThatRedirects({});
    await runLogin(flow, {
      browser: false,
      print: () => undefined,
      pasted: lines('http://127.0.0.1:1/callback?error=access_denied&error_description=no'),
    });
    expect(completed.map((u) => u.searchParams.get('error'))).toEqual(['access_denied']);
  });

  it('gives up after its timeout, and on abort', async () => {
    const { flow } = flowThatRedirects({});
    await expect(
      runLogin(flow, { browser: false, print: () => undefined, timeoutMs: 50 }),
    ).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
    const controller = new AbortController();
    const running = runLogin(flow, { browser: false, print: () => undefined, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(running).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
  });
});
