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
  /** The HTTP 5xx the `server/discover` probe failed with, before any `initialize` (transport-tap.ts). */
  readonly probeServerError?: number;
  /** What a stdio server wrote on stdout that is not JSON-RPC. */
  readonly stdoutNoise?: StdoutNoise;
}

/** The stdout lines of a stdio server that are not JSON-RPC: how many, and the first. */
export interface StdoutNoise {
  lines: number;
  first?: string;
}

/** How long the excerpt of a noise line in a message may be. */
const NOISE_EXCERPT_CHARS = 120;

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
  const noise =
    facts.stdoutNoise !== undefined && facts.stdoutNoise.lines > 0 ? facts.stdoutNoise : undefined;
  const noiseDetails = noise && {
    stdoutNoise: { lines: noise.lines, first: noiseExcerpt(noise.first ?? '') },
  };
  if (facts.exit && !facts.exit.requested) {
    const { code, signal } = facts.exit;
    const tail = stderrText(facts.stderrTail);
    return new SwitchboardError(
      'CONNECT_FAILED',
      `Server "${server}" exited (${signal ? `signal ${signal}` : `code ${code}`}) before the handshake finished.` +
        (tail ? ` Its last stderr lines: ${tail}.` : '') +
        (noise ? ` It wrote ${noiseText(noise)}.` : '') +
        ' Run the command by hand to see why, and fix its arguments or environment.',
      { cause: error, details: { server, exited: true, exitCode: code, signal, ...noiseDetails } },
    );
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const within = `Server "${server}" did not finish the handshake within ${Math.round(facts.connectMs / 1000)} s`;
    if (noise) {
      // The usual cause: a banner, a log or a prompt on stdout, where only MCP messages may go.
      return new SwitchboardError(
        'CONNECT_TIMEOUT',
        `${within}; it wrote ${noiseText(noise)}. A stdio server must write only MCP messages (JSON-RPC) on stdout ` +
          'and its logs on stderr: check the command and its arguments (a flag that selects stdio mode?).',
        { cause: error, details: { server, ...noiseDetails } },
      );
    }
    const tail = stderrText(facts.stderrTail);
    return new SwitchboardError(
      'CONNECT_TIMEOUT',
      `${within}${tail ? `; its last stderr lines: ${tail}` : ''}. Check that it is an MCP server on this transport, or raise timeouts.connect.`,
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
    if (facts.probeServerError === undefined) return mapSdkError(http, server, 'connect');
    // The probe failed, not the handshake: said so, and marked for the recovery (connect-recovery.ts).
    const mapped = mapSdkError(http, server, 'server/discover');
    return new SwitchboardError(mapped.code, mapped.message, {
      cause: error,
      details: { ...mapped.details, failedProbe: true },
    });
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

/** "12 lines on stdout that are not JSON-RPC, the first: `…`" */
function noiseText(noise: StdoutNoise): string {
  const lines = noise.lines === 1 ? '1 line' : `${noise.lines} lines`;
  return `${lines} on stdout that ${noise.lines === 1 ? 'is' : 'are'} not JSON-RPC, the first: \`${noiseExcerpt(noise.first ?? '')}\``;
}

/** A line of a server's output fit for one line of a message: control characters out, bounded. */
function noiseExcerpt(line: string): string {
  const flat = line
    // ANSI escape sequences (colours of a banner) whole, then any other control character.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed.
    .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();
  return flat.length > NOISE_EXCERPT_CHARS ? `${flat.slice(0, NOISE_EXCERPT_CHARS)}…` : flat;
}

function stderrText(tail: readonly string[] | undefined): string {
  return (tail ?? [])
    .slice(-5)
    .map((line) => noiseExcerpt(line))
    .join(' | ');
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
