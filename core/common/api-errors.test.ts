import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../base/errors/hivewatch-error.js';
import { API_ERROR_STATUS, API_ERROR_TAXONOMY, ApiError, apiErrorFrom, isApiErrorCode, UNREADABLE_ANSWER, type ApiErrorCode } from './api-errors.js';

const CODES = Object.keys(API_ERROR_STATUS) as ApiErrorCode[];

describe('the API error table', () => {
  it('gives every code a client or server error status', () => {
    for (const code of CODES) expect([400, 401, 403, 404, 405, 409, 413, 500, 503], code).toContain(API_ERROR_STATUS[code]);
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
      const rebuilt = apiErrorFrom(thrown.status, { error: { code: thrown.apiCode, message: thrown.message } }, 'fallback');
      expect({ status: rebuilt.status, apiCode: rebuilt.apiCode, code: rebuilt.code, message: rebuilt.message }).toEqual({
        status: thrown.status,
        apiCode: code,
        code: API_ERROR_TAXONOMY[code],
        message: `message of ${code}`,
      });
    }
  });

  it('names an answer it cannot read http_error, keeping the status received and the best message there is', () => {
    const page = apiErrorFrom(502, '<html>Bad Gateway</html>', 'GET /api/runs: HTTP 502');
    expect({ status: page.status, apiCode: page.apiCode, message: page.message }).toEqual({
      status: 502,
      apiCode: 'http_error',
      message: 'GET /api/runs: HTTP 502',
    });
    const unknown = apiErrorFrom(418, { error: { code: 'teapot', message: 'short and stout' } }, 'fallback');
    expect({ status: unknown.status, apiCode: unknown.apiCode, message: unknown.message }).toEqual({
      status: 418,
      apiCode: 'http_error',
      message: 'short and stout',
    });
    expect(apiErrorFrom(500, null, 'no body').message).toBe('no body');
  });

  it('is a HivewatchError: each wire code names one taxonomy code, a system one for every 5xx', () => {
    const error = new ApiError('run_not_found', 'no run run_x');
    expect(error).toBeInstanceOf(HivewatchError);
    expect(error.toEnvelope()).toMatchObject({ category: 'user', code: 'USER_RUN_NOT_FOUND', message: 'no run run_x', origin: 'user', recoverable: false });
    expect(new ApiError('store_unavailable', 'away')).toMatchObject({ code: 'SYSTEM_STORE_UNAVAILABLE', category: 'system', recoverable: true, status: 503 });
    expect(new ApiError('unauthorized', 'no token')).toMatchObject({ code: 'POLICY_UNAUTHORIZED', category: 'policy', status: 401 });
    const taxonomyCodes = CODES.map((code) => API_ERROR_TAXONOMY[code]);
    expect(new Set(taxonomyCodes).size).toBe(CODES.length);
    for (const code of CODES) {
      if (API_ERROR_STATUS[code] >= 500) expect(new ApiError(code, 'x').category, code).toBe('system');
    }
  });
});
