import { isSwitchboardError, type SwitchboardError } from '../../src/core/errors.js';

/** Awaits a promise that must reject with a SwitchboardError, and returns that error. */
export async function rejection(promise: Promise<unknown>): Promise<SwitchboardError> {
  try {
    await promise;
  } catch (error) {
    if (isSwitchboardError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
