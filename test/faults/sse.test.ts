import { describe, it } from 'vitest';
import { runSseFault } from './http-trial.js';
import { SSE_FAULTS } from './sse-faults.js';

/** The fault matrix over the legacy HTTP+SSE transport: every row of sse-faults.ts, concurrently. */
describe.concurrent('legacy HTTP+SSE fault matrix', () => {
  for (const fault of SSE_FAULTS) {
    it.skipIf(fault.knownDefect !== undefined)(
      `${fault.id} [${fault.class}]: ${fault.promise}`,
      () => runSseFault(fault),
      45_000,
    );
  }
});
