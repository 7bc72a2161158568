/** Public API of the host layer: many connections as one system. */

export type { AppReference, AppView } from './apps/app-views.js';
export { appReferenceOf } from './apps/app-views.js';
export type { HostLoginOptions } from './auth/host-login.js';
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
export type { SecretKey } from './credentials/credential-cipher.js';
export { CredentialCipher } from './credentials/credential-cipher.js';
export type { LoadSecretKeyOptions } from './credentials/secret-key.js';
export { loadSecretKey, SECRET_KEY_ENV } from './credentials/secret-key.js';
export type { StoreCredentialStoreOptions } from './credentials/store-credential-store.js';
export { openStoreCredentialStore, StoreCredentialStore } from './credentials/store-credential-store.js';
export type {
  Admission,
  ApprovalAnswer,
  ApprovalRequest as GovernorApprovalRequest,
  AskApproval,
  GovernorOptions,
} from './governance/governor.js';
export { DEFAULT_SESSION, Governor } from './governance/governor.js';
export type { CallHooks, HookCall, HostEvents, HostOptions, ServerStatus } from './host.js';
export { Host } from './host.js';
export type { ElicitationContent, ElicitationFormSchema, FormField } from './inbox/elicitation-form.js';
export { checkFormContent, formFields, secretFieldNames } from './inbox/elicitation-form.js';
export type {
  ApprovalRequest,
  AskOptions,
  ElicitationRequest,
  InboxAction,
  InboxAnswer,
  InboxEndReason,
  InboxEvents,
  InboxFilter,
  InboxItem,
  InboxKind,
  InboxOptions,
  InboxOutcome,
  InboxRequest,
  ResolveOptions,
} from './inbox/inbox.js';
export { DEFAULT_INBOX_TIMEOUT_MS, Inbox } from './inbox/inbox.js';
export { inboxApprovalAsker, inboxElicitationHandler } from './inbox/inbox-adapters.js';
export type { TerminalPromptOptions } from './inbox/terminal-prompt.js';
export { attachTerminalPrompt } from './inbox/terminal-prompt.js';
export { HeldSkills } from './skills/held-skills.js';
export type { HostSkillsDeps, LoadedSkillFile } from './skills/host-skills.js';
export { HostSkills } from './skills/host-skills.js';
export type {
  IncompleteList,
  ServerSnapshot,
  ServerState,
  SupervisorEvents,
  SupervisorOptions,
} from './supervisor/supervisor.js';
export { Supervisor } from './supervisor/supervisor.js';
