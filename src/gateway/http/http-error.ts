/**
 * A refusal on the wire: an HTTP status, the JSON-RPC error code the body carries, a message
 * meant for the client, and response headers (`Retry-After`, `WWW-Authenticate`). Middleware
 * throws these; the security chain turns them into responses in one place.
 */

/** JSON-RPC "server error" (the range -32000..-32099 is implementation-defined, JSON-RPC 2.0 §5.1). */
export const RPC_SERVER_ERROR = -32000;
/** JSON-RPC internal error. */
export const RPC_INTERNAL_ERROR = -32603;

export class HttpError extends Error {
  readonly status: number;
  readonly rpcCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    options: { rpcCode?: number; headers?: Readonly<Record<string, string>>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.rpcCode = options.rpcCode ?? RPC_SERVER_ERROR;
    this.headers = options.headers ?? {};
  }
}
