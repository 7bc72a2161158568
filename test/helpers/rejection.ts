import { isSwitchboardError, type SwitchboardError } from '../../src/core/errors.js';

/** Awaits a promise that must reject with a SwitchboardError, and returns that error. */
export async function rejection(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error = await rejectionOf(promise);
  if (isSwitchboardError(error)) return error;
  throw error;
}

/** Awaits a promise that must reject, and returns whatever it rejected with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Runs `fn`, which must throw a SwitchboardError, and returns that error. */
export function thrown(fn: () => unknown): SwitchboardError {
  try {
    fn();
  } catch (error) {
    if (isSwitchboardError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
