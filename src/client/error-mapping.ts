import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describeError, SwitchboardError } from '../core/errors.js';
import { MalformedResponse } from './response-shape.js';
import { STREAM_LOST_CODE } from './transports/http.js';

/**
 * Turns what the SDK throws into SwitchboardErrors, by the SDK's error *codes* (never by
 * message text). JSON-RPC errors from the server keep their numeric code in `details.rpcCode`.
 */
export function mapSdkError(error: unknown, server: string, method: string): SwitchboardError {
  if (error instanceof SwitchboardError) return withServer(error, server, method);
  if (error instanceof SdkHttpError) {
    const data = error.data as { text?: unknown };
    const body = typeof data.text === 'string' ? excerpt(data.text) : undefined;
    const status = error.status;
    const hint =
      status === 401 || status === 403
        ? "Check the server's credentials (headers or auth settings)."
        : status === 404
          ? method === 'connect'
            ? 'Check the URL: is this the MCP endpoint (often ending in /mcp)?'
            : 'The session may have expired or the endpoint moved; reconnect, and check the URL.'
          : status >= 500
            ? 'The server failed; see its logs, then retry.'
            : 'The server rejected the request; check the URL and the protocol setting.';
    return new SwitchboardError(
      'UPSTREAM_HTTP',
      `Server "${server}" answered ${method} with HTTP ${status}${body ? `: ${body}` : ''}. ${hint}`,
      { cause: error, details: { server, status, ...(body !== undefined && { body }) } },
    );
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed:
        return new SwitchboardError(
          'UPSTREAM_DISCONNECTED',
          `Server "${server}" disconnected before answering ${method}. Reconnect, and check the server's log if it keeps happening.`,
          { cause: error, details: { server } },
        );
      case SdkErrorCode.ClientHttpUnexpectedContent:
        // A 2xx body that is neither JSON nor SSE (an HTML page from a proxy, say): no answer.
        return protocolError(server, method, excerpt(error.message), error);
      case SdkErrorCode.InvalidResult:
        // Well-formed JSON-RPC, but not what the method answers (its result schema says no).
        return protocolError(server, method, excerpt(error.message), error);
      case SdkErrorCode.RequestTimeout:
        return new SwitchboardError(
          'REQUEST_TIMEOUT',
          `Server "${server}" did not answer ${method} in time. Raise timeouts.request for this server if it is just slow.`,
          { cause: error, details: { server } },
        );
      default:
        return new SwitchboardError('UPSTREAM_ERROR', `Server "${server}", ${method}: ${error.message}`, {
          cause: error,
          details: { server, sdkCode: error.code },
        });
    }
  }
  if (error instanceof ProtocolError && error.data instanceof MalformedResponse) {
    return protocolError(server, method, `a malformed answer: ${error.data.problem}`, error);
  }
  if (error instanceof ProtocolError && error.code === STREAM_LOST_CODE) {
    return new SwitchboardError(
      'UPSTREAM_DISCONNECTED',
      `Server "${server}" closed the response stream for ${method} without answering. Retry; if it keeps happening, check the server's log.`,
      { cause: error, details: { server } },
    );
  }
  if (error instanceof ProtocolError) {
    return new SwitchboardError(
      'UPSTREAM_ERROR',
      `Server "${server}" returned an error for ${method}: ${error.message}`,
      {
        cause: error,
        details: { server, rpcCode: error.code, rpcData: error.data },
      },
    );
  }
  return new SwitchboardError('UPSTREAM_ERROR', `Server "${server}", ${method}: ${describeError(error)}`, {
    cause: error,
    details: { server },
  });
}

/**
 * A transport's own error (a connection refused, a network policy refusal) names the URL or
 * the command, not the server: it gets the server's name and the method, so every error a
 * caller sees says which server failed (a host runs many). Errors that name it already pass.
 */
export function withServer(error: SwitchboardError, server: string, method: string): SwitchboardError {
  if (error.details.server !== undefined) return error;
  return new SwitchboardError(error.code, `Server "${server}", ${method}: ${error.message}`, {
    cause: error,
    details: { ...error.details, server },
  });
}

/** UPSTREAM_PROTOCOL: the server answered, in a shape the protocol does not allow. */
function protocolError(server: string, method: string, what: string, cause: unknown): SwitchboardError {
  return new SwitchboardError(
    'UPSTREAM_PROTOCOL',
    `Server "${server}" broke the MCP protocol answering ${method}: ${what}. The request failed and was not retried; ` +
      "report it to the server's maintainers, or check its version.",
    { cause, details: { server, method } },
  );
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
