import { describe, it } from 'vitest';
import { HTTP_FAULTS } from './http-faults.js';
import { runHttpFault } from './http-trial.js';

/** The fault matrix over Streamable HTTP: every row of http-faults.ts, concurrently. */
describe.concurrent('Streamable HTTP fault matrix', () => {
  for (const fault of HTTP_FAULTS) {
    it.skipIf(fault.knownDefect !== undefined)(
      `${fault.id} [${fault.class}]: ${fault.promise}`,
      () => runHttpFault(fault),
      45_000,
    );
  }
});
