import type { ApiError } from '../../src/gateway/api/api-types.js';

/**
 * A failed API request: the API's own `error.code` and `error.message` when it sent an
 * `ApiError` body, else a code made here (`NETWORK`, `HTTP_<status>`) and words for it.
 */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** Reads an error response into an `ApiRequestError`, whatever its body holds. */
export async function errorFromResponse(response: Response): Promise<ApiRequestError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ApiError>;
    if (body.error && typeof body.error.message === 'string') {
      return new ApiRequestError(
        response.status,
        typeof body.error.code === 'string' ? body.error.code : `HTTP_${response.status}`,
        body.error.message,
        body.error.details,
      );
    }
  } catch {
    // Not JSON: a proxy's page or plain text; shown below as it is.
  }
  const excerpt = text.trim().slice(0, 300);
  const words = excerpt || response.statusText || 'no details';
  return new ApiRequestError(response.status, `HTTP_${response.status}`, `HTTP ${response.status}: ${words}`);
}

/** The words to show for any error: the API's message, or the error's own. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
