import { isSwitchboardError, type SwitchboardErrorCode } from '../../core/errors.js';
import type { GatewayContext } from '../http/context.js';
import { checkInputCaps, type InputLimits } from '../mcp/input-caps.js';
import type { ApiError } from './api-types.js';

/**
 * How the API fails: every status ≥ 400 carries an `ApiError` body. Routes throw `ApiProblem`
 * for refusals they make themselves; errors of the host (`SwitchboardError`) keep their code
 * and message and get the status their code means; anything else is a 500 that shows only the
 * request id, while the gateway's log gets the details. This file is the one place where
 * thrown errors become API responses.
 */

/** A refusal a route makes itself: status, stable code, message with the fix, optional details. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: unknown; headers?: Readonly<Record<string, string>> } = {},
  ) {
    super(message);
    this.name = 'ApiProblem';
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** An `ApiError` response. */
export function apiError(
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const body: ApiError = { error: { code, message, ...(details !== undefined && { details }) } };
  return Response.json(body, { status, headers });
}

/** The HTTP status of each host error code the API may see. */
const STATUS_OF: Readonly<Partial<Record<SwitchboardErrorCode, number>>> = {
  NOT_FOUND: 404,
  INVALID_ARGUMENT: 400,
  CONFIG_INVALID: 400,
  ENV_VAR_MISSING: 400,
  POLICY_DENIED: 403,
  APPROVAL_DECLINED: 403,
  INBOX_FULL: 503,
  ALREADY_ANSWERED: 409,
  NOT_CONNECTED: 503,
  MCP_OFF: 503,
  UPSTREAM_DISCONNECTED: 503,
  UPSTREAM_RECONNECTING: 503,
  CONNECT_FAILED: 503,
  CONNECT_TIMEOUT: 503,
  SPAWN_FAILED: 503,
  AUTH_REQUIRED: 503,
  REQUEST_TIMEOUT: 504,
  REQUEST_CANCELLED: 499,
  TASK_CANCELLED: 499,
  UPSTREAM_ERROR: 502,
  UPSTREAM_PROTOCOL: 502,
  UPSTREAM_HTTP: 502,
  AUTH_FAILED: 502,
  PROTOCOL_VERSION_UNSUPPORTED: 502,
  MESSAGE_TOO_LARGE: 502,
  SKILL_VERIFICATION_FAILED: 502,
  SKILL_TOO_LARGE: 502,
  TASK_FAILED: 502,
  TASK_EXPIRED: 502,
};

/** JSON-RPC codes a server answers with that are the caller's fault, not the server's. */
const RPC_STATUS: Readonly<Record<number, number>> = {
  // Invalid params (JSON-RPC 2.0 §5.1): a prompt's missing argument, a bad URI.
  [-32602]: 400,
  // Resource not found (MCP "Resources", error handling).
  [-32002]: 404,
};

/** The response for whatever a route threw. */
export function problemResponse(error: unknown, ctx: GatewayContext): Response {
  if (error instanceof ApiProblem)
    return apiError(error.status, error.code, error.message, error.details, error.headers);
  if (isSwitchboardError(error)) {
    const rpcCode = error.details.rpcCode;
    const status =
      (error.code === 'UPSTREAM_ERROR' && typeof rpcCode === 'number' ? RPC_STATUS[rpcCode] : undefined) ??
      STATUS_OF[error.code] ??
      500;
    if (status >= 500 && status !== 502 && status !== 503 && status !== 504)
      ctx.log.error(`request ${ctx.id}: ${error.code}`, error);
    return apiError(status, error.code, error.message, error.details);
  }
  ctx.log.error(
    `request ${ctx.id}: ${ctx.request.method} ${new URL(ctx.request.url).pathname} failed`,
    error,
  );
  return apiError(
    500,
    'INTERNAL',
    `Internal error. The gateway log has the details under request id ${ctx.id}.`,
    { requestId: ctx.id },
  );
}

/**
 * The 400 for input over the gateway's caps (input-caps.ts), as the MCP endpoint refuses it:
 * what the API passes on to a server is held to the same limits.
 */
export function refuseOversizedInput(value: unknown, limits: InputLimits): void {
  const tooBig = checkInputCaps(value, limits);
  if (tooBig)
    throw new ApiProblem(400, 'INVALID_ARGUMENT', `Refused: ${tooBig}. Send less, or raise gateway.limits.`);
}
