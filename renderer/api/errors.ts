/**
 * The error the API clients throw: the same status, code and message the service's ApiError
 * has (core/service/errors.ts), rebuilt on this side of the wire (the renderer imports no
 * runtime code from core/).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A wire body `{error: {code, message}}` (or anything else) → ApiError. */
export function apiErrorFrom(status: number, body: unknown, fallback: string): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : 'http_error';
  const message = typeof error?.message === 'string' ? error.message : fallback;
  return new ApiError(status, code, message);
}
