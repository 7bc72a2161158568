import { defineConfig } from 'vitest/config';

// The SSH example server against a real OpenSSH server (`npm run test:ssh`): they need
// Debian's openssh-server installed, and root to create a throwaway login for the password
// and sudo tests, which plain `npm test` does not set up.
export default defineConfig({
  test: {
    include: ['test/ssh/**/*.test.ts'],
    // Each test starts the server under tsx and makes several SSH handshakes in pure JS: on a
    // loaded two-core machine one test took 50 s, so the bound is generous.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
