import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The dashboard's browser tests need Chromium and a built dashboard: `npm run test:browser`.
    // The SSH server's tests need Debian's openssh-server (and root for a throwaway login):
    // `npm run test:ssh`. The replica tests run three gateways, PostgreSQL and HAProxy:
    // `npm run test:replicas`.
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/ssh/**', 'test/gateway/replicas/**'],
    globalSetup: ['test/fixtures/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: fixture servers are real processes, so keep parallelism modest.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
