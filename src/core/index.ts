/** Public API of the core layer: errors, config and interpolation. */

export type { ConfigFile, InvalidEntry, NormalizeConfigOptions } from './config/config-file.js';
export {
  configFileSchema,
  mergeConfigs,
  normalizeConfigFile,
  parseConfigText,
  readConfigText,
} from './config/config-file.js';
export type { ConfigTextLimits } from './config/config-text.js';
export {
  CONFIG_MAX_BYTES,
  FOREIGN_CONFIG_LIMITS,
  FOREIGN_CONFIG_MAX_BYTES,
  OWN_CONFIG_LIMITS,
} from './config/config-text.js';
export type {
  GatewayAuthConfig,
  GatewayAuthMode,
  GatewayConfig,
  GatewayJwtConfig,
  GatewayLimits,
  GatewaySection,
  GatewayTokenConfig,
  JwtAlgorithm,
  RateLimitConfig,
  ResourceMetadataConfig,
} from './config/gateway-config.js';
export {
  DEFAULT_GATEWAY,
  gatewaySchema,
  hashToken,
  JWT_ALGORITHMS,
  mergeGateway,
  parseGateway,
  resolveGateway,
} from './config/gateway-config.js';
export type {
  ApprovalModeName,
  GovernanceConfig,
  ProfileName,
  RuleConfig,
  ScanPolicyName,
} from './config/governance-config.js';
export {
  DEFAULT_GOVERNANCE,
  governanceSchema,
  mergeGovernance,
  resolveGovernance,
} from './config/governance-config.js';
export { parseClaudeCodeConfig } from './config/imports/claude-code.js';
export { parseClaudeDesktopConfig } from './config/imports/claude-desktop.js';
export { parseCodexConfig } from './config/imports/codex.js';
export { parseCursorConfig } from './config/imports/cursor.js';
export type { ImportClient, ImportedEntry, ImportResult } from './config/imports/import-entry.js';
export { parseVsCodeConfig } from './config/imports/vscode.js';
export { parseWindsurfConfig } from './config/imports/windsurf.js';
export { configJsonSchema } from './config/json-schema.js';
export type {
  SandboxLimits,
  SandboxNetwork,
  SandboxProfile,
  SandboxSetting,
} from './config/sandbox-config.js';
export { DEFAULT_SANDBOX, DEFAULT_SANDBOX_PROFILE } from './config/sandbox-config.js';
export {
  isServerName,
  SERVER_NAME_MAX_LENGTH,
  SERVER_NAME_RULE,
  serverNameProblem,
  serverNameSchema,
} from './config/server-name.js';
export type { SwitchboardErrorCode, SwitchboardErrorDetails } from './errors.js';
export { describeError, isSwitchboardError, SwitchboardError } from './errors.js';
export type { InterpolationSite } from './interpolate.js';
export { interpolate, interpolateRecord } from './interpolate.js';
export type { AppCsp, AppPermission, ResourceUi, ToolAudience, ToolUi } from './mcp-apps.js';
export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  appAllowAttribute,
  appContentSecurityPolicy,
  appsClientCapability,
  declaresApps,
  isAppUri,
  isAppVisible,
  isModelVisible,
  resourceUi,
  toolUi,
  withoutUiMeta,
} from './mcp-apps.js';
export type {
  AuthConfig,
  BearerAuthConfig,
  Deferral,
  EntrySource,
  HttpTransportConfig,
  IdpConfig,
  OAuthConfig,
  OAuthGrant,
  ProtocolMode,
  RawServerEntry,
  RawServerEntryFields,
  RootConfig,
  ServerConfig,
  StdioTransportConfig,
  Timeouts,
  ToolFilter,
  TransportConfig,
  TrustLevel,
} from './server-config.js';
export {
  configEntryError,
  DEFAULT_STARTUP_TIMEOUT_MS,
  DEFAULT_TIMEOUTS,
  KNOWN_PROTOCOL_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  normalizeServerEntry,
  parseProtocolMode,
  rawServerEntrySchema,
  SERVER_NAME_PATTERN,
  serverEntryFieldsSchema,
} from './server-config.js';
/** OpenTelemetry: event-loop delay gauges on the app's own SDK (docs/observability.md). */
export { observeEventLoop } from './telemetry/event-loop.js';
