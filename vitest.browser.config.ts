import { defineConfig } from 'vitest/config';

/**
 * The dashboard's browser tests (`npm run test:browser`, after `npm run build:web`): a real
 * `switchboard start` and a real headless Chromium per file, one file at a time.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 1, minForks: 1 } },
    fileParallelism: false,
  },
});
