/** Public API of the core layer: errors, config and interpolation. */

export type { SwitchboardErrorCode, SwitchboardErrorDetails } from './errors.js';
export { describeError, isSwitchboardError, SwitchboardError } from './errors.js';
export type { InterpolationSite } from './interpolate.js';
export { interpolate, interpolateRecord } from './interpolate.js';
export type {
  EntrySource,
  HttpTransportConfig,
  ProtocolMode,
  RawServerEntry,
  RootConfig,
  ServerConfig,
  StdioTransportConfig,
  Timeouts,
  TransportConfig,
} from './server-config.js';
export {
  DEFAULT_TIMEOUTS,
  KNOWN_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  normalizeServerEntry,
  parseProtocolMode,
  rawServerEntrySchema,
  SERVER_NAME_PATTERN,
} from './server-config.js';
