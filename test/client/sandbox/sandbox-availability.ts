import { createSandboxCgroup } from '../../../src/client/cgroups/cgroup-limits.js';
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
/** CI sets SWITCHBOARD_REQUIRE_SANDBOX=1: what would be skipped fails instead. */
export const required = process.env.SWITCHBOARD_REQUIRE_SANDBOX === '1';

/** True when the sandbox tests are to be skipped (and it was said why). */
export const skipSandbox = unavailable !== undefined && !required;

if (skipSandbox) {
  process.stderr.write(
    `\n*** Sandbox tests SKIPPED: bubblewrap cannot sandbox here. ${unavailable}\n` +
      '*** Install bubblewrap (apt-get install bubblewrap) and allow user namespaces to run them; CI requires them.\n\n',
  );
}

/** True when the tests run as root (whom the kernel exempts from RLIMIT_NPROC). */
export const isRoot = process.getuid?.() === 0;

/**
 * Whether a sandbox gets a cgroup holding its process count here (pids.max binds root too).
 * Found out the way a launch does it: by making one.
 */
export const processCgroup: { readonly held: boolean; readonly memory: boolean; readonly why: string } =
  (() => {
    const made = createSandboxCgroup('availability', { processes: 8, memoryMb: 64 });
    void made.cgroup?.remove();
    const held = made.cgroup?.held.some((h) => h.controller === 'pids') ?? false;
    return {
      held,
      memory: made.cgroup?.held.some((h) => h.controller === 'memory') ?? false,
      why: held
        ? 'a cgroup holds pids.max'
        : 'no writable pids controller (cgroup v2 delegated, or v1 as root): as root, nothing bounds the process count',
    };
  })();

if (isRoot && !processCgroup.held && !skipSandbox) {
  process.stderr.write(
    `\n*** Sandbox process-limit tests cannot hold as root here: ${processCgroup.why}.\n\n`,
  );
}
