/** Public API of the policy layer: pure decisions, no I/O. */

export type { AddressVerdict } from './address-class.js';
export { classifyAddress, inspectAddress } from './address-class.js';
export type { AddressClass, AddressRange } from './address-ranges.js';
export { ADDRESS_RANGES } from './address-ranges.js';
export type {
  ApprovalMode,
  CallRequest,
  Decision,
  PolicyRule,
  Profile,
  ReadKind,
  ReadRequest,
  Verdict,
} from './decide.js';
export { decide, decideRead } from './decide.js';
export type { IpAddress } from './ip-address.js';
export { parseIpAddress } from './ip-address.js';
export { isSecretField, MASKED, maskArguments, maskSecretValues, previewArguments } from './masking.js';
export type { NetworkDecision, NetworkOutcome, NetworkPolicy } from './network.js';
export { decideHost, decideNetwork } from './network.js';
export type { Registrant, RegistrationSandboxDecision } from './registration-sandbox.js';
export { decideRegistrationSandbox, registrantOf } from './registration-sandbox.js';
export type { Finding, FindingKind, ScanContext, ScanPolicy } from './scan/finding.js';
export type {
  GuardedPrompt,
  GuardOptions,
  PromptContentLike,
  PromptMessageLike,
  ResourceContentsLike,
} from './scan/guard.js';
export { guardPromptMessages, guardResourceContents, guardUntrustedText } from './scan/guard.js';
export { revealHidden } from './scan/hidden-unicode.js';
export { scanText } from './scan/scan-text.js';
export type { ToolDefinitionLike } from './scan/scan-tool.js';
export { SCHEMA_LIMITS, scanTool } from './scan/scan-tool.js';
export type { ScanDecision } from './scan/summary.js';
export { decideScan, summarizeFindings } from './scan/summary.js';
export type { ToolAnnotationsLike, ToolRisk, TrustLevel } from './tool-risk.js';
export { toolRisk } from './tool-risk.js';
