import { defineConfig } from 'vitest/config';

/**
 * The replica tests (`npm run test:replicas`): three real `switchboard serve` processes on one
 * PostgreSQL database behind a real HAProxy, one file at a time (each starts its own fleet).
 */
export default defineConfig({
  test: {
    include: ['test/gateway/replicas/**/*.test.ts'],
    globalSetup: ['test/fixtures/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    fileParallelism: false,
  },
});
