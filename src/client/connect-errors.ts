import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describeError, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { type EraPlan, isModernVersion } from './era.js';
import { mapSdkError, withServer } from './error-mapping.js';
import type { HttpFailure } from './transports/http.js';
import type { ExitInfo } from './transports/stdio.js';

/**
 * Why a connect attempt failed, in words a user can act on. Pure: the facts observed during
 * the attempt come in, one typed error goes out. The order matters: the most specific
 * explanation wins (a wrong protocol version over "it exited", an HTTP status over the
 * SDK's opaque negotiation error).
 */
export interface ConnectFailureFacts {
  readonly server: string;
  readonly error: unknown;
  readonly plan: EraPlan;
  readonly connectMs: number;
  /** The protocol version the server offered in its `initialize` result, if one came. */
  readonly offered?: string;
  /** How a stdio server exited, and its last stderr lines. */
  readonly exit?: ExitInfo;
  readonly stderrTail?: readonly string[];
  /** The last non-2xx HTTP answer seen on the wire. */
  readonly httpFailure?: HttpFailure;
}

export function classifyConnectFailure(facts: ConnectFailureFacts): SwitchboardError {
  const { server, error, plan } = facts;
  // The network gave way before the handshake finished (refused, reset): the connect failed.
  if (isSwitchboardError(error, 'UPSTREAM_DISCONNECTED')) {
    return new SwitchboardError(
      'CONNECT_FAILED',
      `Could not connect to server "${server}": ${error.message}`,
      {
        cause: error,
        details: { ...error.details, server },
      },
    );
  }
  if (error instanceof SwitchboardError) return withServer(error, server, 'connect');
  if (
    facts.offered !== undefined &&
    !plan.supportedVersions.includes(facts.offered) &&
    !isModernVersion(facts.offered)
  ) {
    return versionError(server, facts.offered, plan.supportedVersions);
  }
  if (facts.exit && !facts.exit.requested) {
    const { code, signal } = facts.exit;
    const tail = (facts.stderrTail ?? []).slice(-5).join(' | ');
    return new SwitchboardError(
      'CONNECT_FAILED',
      `Server "${server}" exited (${signal ? `signal ${signal}` : `code ${code}`}) before the handshake finished.` +
        (tail ? ` Its last stderr lines: ${tail}.` : '') +
        ' Run the command by hand to see why, and fix its arguments or environment.',
      { cause: error, details: { server, exited: true, exitCode: code, signal } },
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    return new SwitchboardError(
      'CONNECT_TIMEOUT',
      `Server "${server}" did not finish the handshake within ${Math.round(facts.connectMs / 1000)} s. ` +
        'Check that it is an MCP server on this transport, or raise timeouts.connect.',
      { cause: error, details: { server } },
    );
  }
  const pinned = pinnedVersion(plan);
  const negotiationFailed = error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed;
  // A 400 to a pinned probe is the server saying "not that version"; any other status is the answer.
  if (facts.httpFailure && !(negotiationFailed && pinned && facts.httpFailure.status === 400)) {
    // The SDK's negotiation errors drop the HTTP status (#2410); we saw it on the wire.
    const { status, body } = facts.httpFailure;
    const http = new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, describeError(error), {
      status,
      text: body,
    });
    return mapSdkError(http, server, 'connect');
  }
  if (negotiationFailed && pinned) {
    return new SwitchboardError(
      'PROTOCOL_VERSION_UNSUPPORTED',
      `Server "${server}" does not offer protocol ${pinned} (${describeError(error)}). ` +
        'Set "protocol" for this server to "auto" or "legacy" to use what it speaks.',
      { cause: error, details: { server, pinned } },
    );
  }
  const mapped = mapSdkError(error, server, 'connect');
  if (mapped.code === 'UPSTREAM_HTTP' || mapped.code === 'REQUEST_TIMEOUT') return mapped;
  return new SwitchboardError(
    'CONNECT_FAILED',
    `Could not connect to server "${server}": ${describeError(error)}`,
    {
      cause: error,
      details: { ...mapped.details, server },
    },
  );
}

/** The version a plan insists on: a pinned revision, or the modern one for `modern`. */
export function pinnedVersion(plan: EraPlan): string | undefined {
  const mode = plan.negotiation.mode;
  return plan.pinned ?? (typeof mode === 'object' ? mode.pin : undefined);
}

export function versionError(
  server: string,
  offered: string,
  supported: readonly string[],
): SwitchboardError {
  return new SwitchboardError(
    'PROTOCOL_VERSION_UNSUPPORTED',
    `Server "${server}" speaks protocol ${offered}, but this connection accepts ${supported.join(', ')}. ` +
      'Set "protocol" for this server to a version both sides support, or "auto".',
    { details: { server, offered, supported: [...supported] } },
  );
}
