import { describe, it } from 'vitest';
import { STDIO_FAULTS } from './stdio-faults.js';
import { runStdioFault } from './stdio-trial.js';

/**
 * The fault matrix over stdio: every row of stdio-faults.ts against a real misbehaving server
 * process, through a Connection. Rows are independent (each its own server, tag and
 * connection), so they run concurrently.
 */
describe.concurrent('stdio fault matrix', () => {
  for (const fault of STDIO_FAULTS) {
    it.skipIf(fault.knownDefect !== undefined)(
      `${fault.id} [${fault.class}]: ${fault.promise}`,
      () => runStdioFault(fault),
      45_000,
    );
  }
});
