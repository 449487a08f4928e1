import { describe, expect, it } from 'vitest';
import { API_ERROR_STATUS, ApiError, apiErrorFrom, isApiErrorCode, UNREADABLE_ANSWER, type ApiErrorCode } from './api-errors.js';

const CODES = Object.keys(API_ERROR_STATUS) as ApiErrorCode[];

describe('the API error table', () => {
  it('gives every code a client or server error status', () => {
    for (const code of CODES) expect([400, 401, 403, 404, 405, 409, 500, 503], code).toContain(API_ERROR_STATUS[code]);
    expect(isApiErrorCode(UNREADABLE_ANSWER)).toBe(false);
  });

  it('takes the status from the code, so a thrower cannot pair a code with another status', () => {
    expect(new ApiError('run_not_found', 'no run run_x').status).toBe(404);
    expect(new ApiError('journal_unwritable', 'disk full').status).toBe(503);
    expect(new ApiError('run_active', 'still running', 200).status).toBe(409);
  });

  it('rebuilds every code from its wire form with the same status, code and message', () => {
    for (const code of CODES) {
      const thrown = new ApiError(code, `message of ${code}`);
      const rebuilt = apiErrorFrom(thrown.status, { error: { code: thrown.code, message: thrown.message } }, 'fallback');
      expect({ status: rebuilt.status, code: rebuilt.code, message: rebuilt.message }).toEqual({ status: thrown.status, code, message: `message of ${code}` });
    }
  });

  it('names an answer it cannot read http_error, keeping the status received and the best message there is', () => {
    const page = apiErrorFrom(502, '<html>Bad Gateway</html>', 'GET /api/runs: HTTP 502');
    expect({ status: page.status, code: page.code, message: page.message }).toEqual({ status: 502, code: 'http_error', message: 'GET /api/runs: HTTP 502' });
    const unknown = apiErrorFrom(418, { error: { code: 'teapot', message: 'short and stout' } }, 'fallback');
    expect({ status: unknown.status, code: unknown.code, message: unknown.message }).toEqual({ status: 418, code: 'http_error', message: 'short and stout' });
    expect(apiErrorFrom(500, null, 'no body').message).toBe('no body');
  });
});
