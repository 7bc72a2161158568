/** Public API of the client layer: one connection to one MCP server. */

export { Connection } from './connection.js';
export type {
  CallOptions,
  ConnectionEvents,
  ConnectionOptions,
  ConnectionState,
  LogEntry,
  ServerEvent,
  ToolCallOptions,
} from './connection-types.js';
export type { EraVerdict, EraVerdictStore } from './era.js';
export { MemoryEraVerdictStore, serverIdentity } from './era.js';
export type { ListKind, ListSnapshot } from './list-cache.js';
export type {
  JsonResult,
  LinkPart,
  MediaPart,
  MediaResult,
  SchemaCheck,
  TextResult,
  ToolResult,
} from './results.js';
export { normalizeToolResult } from './results.js';
export type {
  ElicitationHandler,
  ElicitationParams,
  ElicitationResponse,
  SamplingHandler,
  SamplingParams,
  ServerRequestContext,
} from './server-requests.js';
export { declineElicitation } from './server-requests.js';
export type { TaskInfo, TaskStatus } from './task-runner.js';
export { createSseTransport, HttpTransport } from './transports/http.js';
export type { StdioTransportOptions } from './transports/stdio.js';
export { StdioTransport } from './transports/stdio.js';
