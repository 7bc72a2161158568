import { describe, expect, it } from 'vitest';
import {
  SECURITY_HEADERS,
  securityHeaders,
} from '../../../../src/gateway/http/middleware/security-headers.js';
import { contextFor, runStep } from '../harness.js';

describe('securityHeaders', () => {
  it('sets every security header, replacing weaker ones', async () => {
    const ctx = contextFor(new Request('http://127.0.0.1/'));
    const { response } = await runStep(
      securityHeaders(),
      ctx,
      async () =>
        new Response('<html><script>alert(1)</script></html>', {
          headers: { 'content-type': 'text/html', 'cache-control': 'public, max-age=3600' },
        }),
    );
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      expect(response?.headers.get(name)).toBe(value);
    expect(response?.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response?.headers.get('cache-control')).toBe('no-store');
    expect(response?.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(await response?.text()).toContain('<html>');
  });

  it('handles responses with immutable headers', async () => {
    const ctx = contextFor(new Request('http://127.0.0.1/'));
    const { response } = await runStep(securityHeaders(), ctx, async () =>
      Response.redirect('http://127.0.0.1/x', 302),
    );
    expect(response?.headers.get('referrer-policy')).toBe('no-referrer');
  });
});
