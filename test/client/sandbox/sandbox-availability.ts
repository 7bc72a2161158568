import { findBwrap } from '../../../src/client/sandbox/bwrap-probe.js';
import { describeError } from '../../../src/core/errors.js';

/**
 * Whether the sandbox tests can run here: bubblewrap installed and able to create namespaces.
 * Where it cannot, they are skipped with the reason printed — unless
 * SWITCHBOARD_REQUIRE_SANDBOX=1 (CI sets it), where they run and fail with that reason.
 */
const unavailable = await findBwrap().then(
  () => undefined,
  (error: unknown) => describeError(error),
);
const required = process.env.SWITCHBOARD_REQUIRE_SANDBOX === '1';

/** True when the sandbox tests are to be skipped (and it was said why). */
export const skipSandbox = unavailable !== undefined && !required;

if (skipSandbox) {
  process.stderr.write(
    `\n*** Sandbox tests SKIPPED: bubblewrap cannot sandbox here. ${unavailable}\n` +
      '*** Install bubblewrap (apt-get install bubblewrap) and allow user namespaces to run them; CI requires them.\n\n',
  );
}

/** True when the process limit can be tested: the kernel exempts root from RLIMIT_NPROC. */
export const isRoot = process.getuid?.() === 0;
