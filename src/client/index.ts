/** Public API of the client layer: one connection to one MCP server. */

/** The Skills extension's entry and file types, as the SDK defines them. */
export type {
  DirectoryResource,
  InvalidSkillEntry,
  Skill,
  SkillFile,
  SkillResourceEntry,
} from '@modelcontextprotocol/client/ext/skills';
export type { FileLockOptions } from '../core/files/file-lock.js';
export { withFileLock } from '../core/files/file-lock.js';
export type { AuthFailureReason } from './auth/auth-errors.js';
export { findAuthError, loginCommand } from './auth/auth-errors.js';
export { PENDING_LOGIN_TTL_MS } from './auth/authorization-completion.js';
export type { RedirectDriverOptions } from './auth/authorization-redirects.js';
export { followAuthorizationRedirects } from './auth/authorization-redirects.js';
export type { CredentialStore, StoredCredentials, StoredTokens } from './auth/credential-store.js';
export type { AuthorizationDiscovery } from './auth/discovery.js';
export type { FileCredentialStoreOptions } from './auth/file-credential-store.js';
export { FileCredentialStore } from './auth/file-credential-store.js';
export type { HttpAuthOptions } from './auth/http-auth.js';
export { createOAuthSession } from './auth/http-auth.js';
export type { LoginFlow, LoginOptions } from './auth/login/login.js';
export { runLogin } from './auth/login/login.js';
export type { LoopbackListener } from './auth/login/loopback-listener.js';
export { startLoopbackListener } from './auth/login/loopback-listener.js';
export { openBrowser } from './auth/login/open-browser.js';
export { MemoryCredentialStore } from './auth/memory-credential-store.js';
export type {
  AuthorizationHandler,
  AuthorizationRequest,
  AuthorizationStart,
  OAuthSessionOptions,
} from './auth/oauth-session.js';
export { OAuthSession } from './auth/oauth-session.js';
export type { OAuthSettings } from './auth/oauth-settings.js';
export { DEFAULT_REDIRECT_URI, resolveOAuthSettings } from './auth/oauth-settings.js';
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
export type { Cassette, CassetteHeader, CassetteLine } from './recording/cassette.js';
export { parseCassette } from './recording/cassette.js';
export type { Recording, RecordOptions } from './recording/recorder.js';
export { recordSession } from './recording/recorder.js';
export { isSecretName, redact } from './recording/redact.js';
export type { MatchOptions, ReplayAnswer, ReplayMiss } from './recording/replay-matcher.js';
export { ReplayMatcher } from './recording/replay-matcher.js';
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
export type { SkillLimits, SkillSize } from './skill-limits.js';
export { skillLimitProblem, skillSize } from './skill-limits.js';
export type { SkillListing, SkillsLaneHost } from './skills.js';
export { ConnectionSkills } from './skills.js';
export type { TaskInfo, TaskStatus } from './task-runner.js';
export { HttpTransport } from './transports/http.js';
export { SseTransport } from './transports/sse.js';
export type { StdioTransportOptions } from './transports/stdio.js';
export { StdioTransport } from './transports/stdio.js';
