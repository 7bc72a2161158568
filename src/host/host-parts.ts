import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CredentialStore } from '../client/auth/credential-store.js';
import { FileCredentialStore } from '../client/auth/file-credential-store.js';
import type { LogEntry, ServerEvent } from '../client/connection-types.js';
import {
  type AddressResolver,
  type NetworkGuard,
  systemResolver,
} from '../client/transports/guarded-fetch.js';
import type { GovernanceConfig } from '../core/config/governance-config.js';
import { resolveGovernance } from '../core/config/governance-config.js';
import { describeError } from '../core/errors.js';
import type { RootConfig, TrustLevel } from '../core/server-config.js';
import { sandboxDestinations } from '../policy/sandbox-destination.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/ports.js';
import { CallerRelay } from './caller-relay.js';
import { openStoreCredentialStore } from './credentials/store-credential-store.js';
import { persistentEraVerdicts } from './era-verdicts.js';
import { Governor } from './governance/governor.js';
import { guardFor } from './governance/network-guard.js';
import type { HostOptions } from './host-types.js';
import { Inbox } from './inbox/inbox.js';
import { approvalThroughInbox, elicitationThroughInbox } from './inbox/inbox-adapters.js';
import { LogFiles } from './logs/log-files.js';
import { MANAGEMENT_SERVER } from './management/management-tools.js';
import { MediaStore } from './media/media-store.js';
import { SpawnLedger } from './supervisor/spawn-ledger.js';
import { Supervisor } from './supervisor/supervisor.js';

/**
 * The host's composition: the store, logs, credentials, Inbox, supervisor, media and
 * governor, built from `HostOptions` in the order each needs the others. What the parts must
 * ask of the host once it exists (where a log line or a server event goes, how far a server
 * is trusted) goes through `HostSink`, bound after construction.
 */
export interface HostSink {
  onLog(entry: LogEntry): void;
  onEvent(event: ServerEvent): void;
  trustOf(server: string): TrustLevel | undefined;
}

/** Everything a Host is made of. */
export interface HostParts {
  readonly dataDir: string;
  readonly store: Store;
  readonly supervisor: Supervisor;
  readonly logs: LogFiles;
  readonly media: MediaStore;
  readonly governor: Governor;
  readonly inbox: Inbox;
  readonly credentials: CredentialStore;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly callers: CallerRelay;
  readonly settings: GovernanceConfig;
  /** The record of spawned stdio servers, for ending them after a kill (Linux; spawn-ledger.ts). */
  readonly processes: SpawnLedger | undefined;
  /** Where registered servers' HTTP goes: every connect judged by governance.network. */
  readonly network: NetworkGuard;
  /** Resolves host names for the network guard. */
  readonly resolver: AddressResolver;
  /** The roots offered to every server whose entry names none (HostOptions.roots). */
  readonly defaultRoots: readonly RootConfig[];
  /** Connections declare MCP Apps (`options.connection.apps`). */
  readonly rendersApps: boolean;
  /** Set once the host exists; until then log lines and events are dropped (none come). */
  bind(sink: HostSink): void;
}

export async function assembleHost(options: HostOptions): Promise<HostParts> {
  let sink: HostSink | undefined;
  const dataDir = options.dataDir ?? join(homedir(), '.switchboard');
  const store = await openStore(options.database || join(dataDir, 'switchboard.db'));
  const logs = new LogFiles({
    dir: join(dataDir, 'logs'),
    // Not a log line: the log is what failed. Once per file and error code.
    onError: (file, error) =>
      process.emitWarning(
        `Cannot write ${file} (${error.code ?? error.message}); its lines are dropped until it works again.`,
        {
          code: 'SWITCHBOARD_LOG_WRITE',
        },
      ),
  });
  const warn = (text: string) =>
    logs.write('switchboard', { at: new Date(), source: 'lifecycle', level: 'warning', text });
  const eraStore = await persistentEraVerdicts(store.kv, (error) => warn(describeError(error)));
  const settings = resolveGovernance(options.governance);
  const callers = new CallerRelay();
  // On PostgreSQL every instance shares the credentials too: they go in the store, encrypted.
  const inStore =
    options.credentials === 'store' || (options.credentials === undefined && !!options.database);
  const env = options.connection?.env ?? process.env;
  const credentials = inStore
    ? await openStoreCredentialStore({ store, dataDir, env })
    : ((options.credentials as CredentialStore | undefined) ?? new FileCredentialStore({ dataDir }));
  const inbox = new Inbox({ timeoutMs: settings.approvalTimeoutMs });
  // Before any server starts: what dead hosts left on this data dir is ended first.
  const processes = await SpawnLedger.open({
    dir: join(dataDir, 'processes'),
    ...(options.watchdog !== undefined && { watchdog: options.watchdog }),
    log: warn,
  }).catch((error: unknown) => {
    warn(`spawn ledger: not kept (${describeError(error)}); stdio servers are ended in-process only`);
    return undefined;
  });
  const supervisor = new Supervisor({
    connection: {
      // Elicitations go to the client whose call caused them (a gateway client), else to the
      // Inbox; sampling only to such a client. An embedding app's own handlers win.
      elicitation: callers.elicitation(elicitationThroughInbox(inbox)),
      sampling: callers.sampling(),
      roots: callers.roots(),
      credentials,
      // Beside the store, not in it: a sandbox is granted its own directory here and nothing above.
      sandboxDir: join(dataDir, 'sandbox'),
      // A filtered sandbox network's destinations, judged by policy and resolved as the host resolves.
      sandboxNetwork: { judge: sandboxDestinations, resolve: options.resolver ?? systemResolver },
      ...options.connection,
      eraStore,
      onLog: (entry) => sink?.onLog(entry),
      onEvent: (event) => sink?.onEvent(event),
      ...(options.roots && { defaultRoots: options.roots }),
      ...(processes && { spawnRecorder: processes }),
    },
    ...(options.firstConnectDelaysMs && { firstConnectDelaysMs: options.firstConnectDelaysMs }),
    ...(options.enabled === false && { enabled: false }),
  });
  const resolver = options.resolver ?? systemResolver;
  const network = guardFor(settings, { resolve: resolver });
  const media = new MediaStore({
    dir: join(dataDir, 'media'),
    baseUrl: options.mediaBaseUrl ?? 'http://127.0.0.1/media',
  });
  const governor = await Governor.create({
    settings,
    // The built-in management tools' annotations are ours, so they are believed.
    trustOf: (server) => (server === MANAGEMENT_SERVER ? 'trusted' : (sink?.trustOf(server) ?? 'untrusted')),
    store,
    askApproval: options.askApproval ?? approvalThroughInbox(inbox, settings.approvalTimeoutMs),
    onError: (error) => warn(`audit: ${describeError(error)}`),
  });
  return {
    dataDir,
    store,
    supervisor,
    logs,
    media,
    governor,
    inbox,
    credentials,
    env,
    callers,
    settings,
    processes,
    network,
    resolver,
    defaultRoots: options.roots ?? [],
    rendersApps: options.connection?.apps === true,
    bind: (next) => {
      sink = next;
    },
  };
}
