/** Public API of the host layer: many connections as one system. */
export type {
  Attributed,
  CatalogSnapshot,
  CatalogTool,
  RejectedTool,
  RejectionReason,
  ServerOffer,
} from './catalog/catalog.js';
export { buildCatalog } from './catalog/catalog.js';
export { qualifiedToolName, TOOL_NAME_PATTERN } from './catalog/tool-names.js';
export type { CallHooks, HookCall, HostEvents, HostOptions, ServerStatus } from './host.js';
export { Host } from './host.js';
export type {
  ServerSnapshot,
  ServerState,
  SupervisorEvents,
  SupervisorOptions,
} from './supervisor/supervisor.js';
export { Supervisor } from './supervisor/supervisor.js';
