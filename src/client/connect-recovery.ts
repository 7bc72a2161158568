import { SwitchboardError } from '../core/errors.js';
import type { ServerConfig } from '../core/server-config.js';
import type { EraPlan } from './era.js';

/**
 * After a failed first connect attempt: whether one more is worth it, and how. Pure.
 *  - A cached era verdict that no longer holds → forget it, negotiate afresh.
 *  - `auto` on stdio and the server exited during the probe → servers built on older SDKs die
 *    on an unknown pre-initialize request: start it again, straight to `initialize`.
 *  - `auto` over HTTP and `server/discover` got a 5xx → the server fails on a method it does
 *    not know (servers on older SDKs do; the SDK gives up here): connect once more, straight
 *    to `initialize`; if that works the server speaks the old protocol, a verdict to remember.
 *  - Streamable HTTP got a 4xx (not 401/403) → spec 2025-03-26 "Backwards Compatibility": an
 *    old HTTP+SSE server; try the SSE transport on the same URL.
 * Errors no retry can fix (missing command, unset variable, unsupported version, a login
 * needed or refused, an address the network policy refuses) get none.
 */
export interface ConnectAttempt {
  readonly plan: EraPlan;
  /** Use the legacy HTTP+SSE transport instead of Streamable HTTP. */
  readonly sse?: boolean;
}

export interface Recovery {
  readonly attempt: ConnectAttempt;
  readonly reason: string;
  /** The cached verdict was wrong and must be dropped. */
  readonly forgetVerdict: boolean;
  /** The era verdict the attempt teaches when it succeeds (era.ts). */
  readonly teaches?: 'legacy';
}

export function planRecovery(
  error: unknown,
  plan: EraPlan,
  config: Pick<ServerConfig, 'protocol' | 'transport'>,
): Recovery | undefined {
  const sw = error instanceof SwitchboardError ? error : undefined;
  if (
    sw?.code === 'SPAWN_FAILED' ||
    sw?.code === 'SANDBOX_UNAVAILABLE' ||
    sw?.code === 'ENV_VAR_MISSING' ||
    sw?.code === 'PROTOCOL_VERSION_UNSUPPORTED' ||
    sw?.code === 'AUTH_REQUIRED' ||
    sw?.code === 'AUTH_FAILED' ||
    sw?.code === 'POLICY_DENIED'
  ) {
    return undefined;
  }
  if (plan.prior) {
    const { prior: _stale, ...fresh } = plan;
    return {
      attempt: { plan: fresh },
      reason: 'the cached protocol verdict no longer holds',
      forgetVerdict: true,
    };
  }
  const mode = config.protocol.kind;
  const transport = config.transport.kind;
  if (
    mode === 'auto' &&
    transport === 'stdio' &&
    sw?.code === 'CONNECT_FAILED' &&
    sw.details.exited === true
  ) {
    return {
      attempt: { plan: { ...plan, prior: { kind: 'legacy' } } },
      reason: 'the server exited on server/discover',
      forgetVerdict: false,
    };
  }
  const status = sw?.details.status;
  if (mode === 'auto' && transport !== 'stdio' && sw?.details.failedProbe === true) {
    return {
      attempt: { plan: { ...plan, prior: { kind: 'legacy' } } },
      reason: `server/discover got HTTP ${String(status)}; trying initialize`,
      forgetVerdict: false,
      teaches: 'legacy',
    };
  }
  if (
    transport === 'http' &&
    (mode === 'auto' || mode === 'legacy') &&
    typeof status === 'number' &&
    status >= 400 &&
    status < 500 &&
    status !== 401 &&
    status !== 403
  ) {
    return {
      attempt: {
        plan: { negotiation: { mode: 'legacy' }, supportedVersions: plan.supportedVersions },
        sse: true,
      },
      reason: `HTTP ${status} from Streamable HTTP; trying the legacy HTTP+SSE transport`,
      forgetVerdict: false,
    };
  }
  return undefined;
}
