import { describe, expect, it } from 'vitest';
import { serveBanner } from '../../src/cli/serve-command.js';

/** What `serve` prints on stderr: the dashboard's sign-in link at a terminal, never into a log. */
describe('the serve banner', () => {
  const gateway = {
    url: 'http://127.0.0.1:7777/mcp',
    dashboardUrl: 'http://127.0.0.1:7777/ui/',
    dashboardLoginUrl: 'http://127.0.0.1:7777/ui/?token=secret-token',
  };

  it('gives a person at a terminal the link that signs the browser in', () => {
    expect(serveBanner(gateway, 'none', '/d/local-token', true)).toContain(gateway.dashboardLoginUrl);
  });

  it('tells a log where the token is, not the token', () => {
    const line = serveBanner(gateway, 'none', '/d/local-token', false);
    expect(line).not.toContain('secret-token');
    expect(line).toContain('/d/local-token');
  });

  it('shows the plain dashboard when the gateway has configured auth', () => {
    const { dashboardLoginUrl: _, ...bearer } = gateway;
    expect(serveBanner(bearer, 'bearer', undefined, true)).toContain(
      'dashboard at http://127.0.0.1:7777/ui/.',
    );
  });
});
