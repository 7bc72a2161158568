/** Public API of the composition root. */

export type { ReplayOptions } from '../gateway/replay/replay-server.js';
export { replayHttpHandler, replayOnTransport } from '../gateway/replay/replay-server.js';
export type { Switchboard, SwitchboardOptions } from './switchboard.js';
export { createSwitchboard } from './switchboard.js';
