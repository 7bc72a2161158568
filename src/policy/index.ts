/** Public API of the policy layer: pure decisions, no I/O. */
export type { ApprovalMode, CallRequest, Decision, PolicyRule, Profile, Verdict } from './decide.js';
export { decide } from './decide.js';
export type { AddressClass, NetworkDecision, NetworkPolicy } from './network.js';
export { classifyAddress, decideNetwork } from './network.js';
export type { ToolAnnotationsLike, ToolRisk, TrustLevel } from './tool-risk.js';
export { toolRisk } from './tool-risk.js';
