/** Public API of the composition root. */
export type { Switchboard, SwitchboardOptions } from './switchboard.js';
export { createSwitchboard } from './switchboard.js';
