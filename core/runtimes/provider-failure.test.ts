import { describe, expect, it } from 'vitest';
import { classifyProviderFailure, statusOfFailure } from './provider-failure.js';

/** The one classifier's table (docs/presets.md "One classifier"), with the words the real CLIs print (docs/real-agents.md). */

const NOW = Date.UTC(2026, 10, 26, 2, 0, 0);
const classify = (status: number | null, message: string) => classifyProviderFailure({ runtime: 'codex-cli', status, message, clock: { now: NOW, timeZone: 'UTC' } });

describe('classifyProviderFailure', () => {
  it.each([
    [null, 'exceeded retry limit, last status: 429 Too Many Requests, request id: req_stub_0001', 'RUNTIME_RATE_LIMIT', 429],
    [null, 'unexpected status 529 <unknown status code>: Overloaded, url: http://127.0.0.1:1/v1/responses', 'RUNTIME_RATE_LIMIT', 529],
    [null, 'Repeated 529 Overloaded errors', 'RUNTIME_RATE_LIMIT', null],
    [500, 'We’re currently experiencing high demand, which may cause temporary errors.', 'RUNTIME_PROVIDER_ERROR', 500],
    [null, 'We’re currently experiencing high demand, which may cause temporary errors.', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'stream disconnected before completion: The model failed to generate a response.', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'stream disconnected before completion: idle timeout waiting for SSE', 'RUNTIME_TIMEOUT', null],
    [null, 'Request timed out.', 'RUNTIME_TIMEOUT', null],
    [null, 'unexpected status 401 Unauthorized: Incorrect API key provided: stub-***.', 'USER_INVALID_CONFIG', 401],
    [null, 'unexpected status 403 Forbidden: You are not allowed to sample from this model., url: …', 'USER_INVALID_CONFIG', 403],
    [400, 'invalid model', 'USER_INVALID_CONFIG', 400],
    [418, 'I am a teapot', 'RUNTIME_UNKNOWN', 418],
  ] as const)('%s %s → %s', (status, message, code, statusCode) => {
    const error = classify(status, message);
    expect(error.code).toBe(code);
    expect(error.context.statusCode).toBe(statusCode);
  });

  it('a 401 or 403 is the user\'s, never retried; a 5xx and a timeout are retried', () => {
    expect(classify(403, 'Forbidden')).toMatchObject({ recoverable: false, origin: 'user' });
    expect(classify(401, 'Invalid API key')).toMatchObject({ recoverable: false, origin: 'user' });
    expect(classify(502, 'Bad gateway')).toMatchObject({ recoverable: true, origin: 'runtime:codex-cli' });
    expect(classify(504, '')).toMatchObject({ code: 'RUNTIME_TIMEOUT', recoverable: true });
  });

  it('names --skip-git-repo-check when Codex refuses a directory that is not a trusted git repository', () => {
    const error = classify(null, 'Not inside a trusted directory and --skip-git-repo-check was not specified.');
    expect(error).toMatchObject({ code: 'USER_INVALID_CONFIG', recoverable: false });
    expect(error.recoveryHint).toContain('--skip-git-repo-check');
  });

  it('honours a retry-after (given or stated) and a usage limit\'s reset time as context.resetAt', () => {
    const given = classifyProviderFailure({ runtime: 'claude-code', status: 429, message: 'rate limited', retryAfterMs: 30_000, clock: { now: NOW } });
    expect(given.context.resetAt).toBe(NOW + 30_000);
    expect(classify(429, 'Too Many Requests; retry-after: 12').context.resetAt).toBe(NOW + 12_000);
    expect(classify(429, 'Too Many Requests').context.resetAt).toBeUndefined();
    const usage = classify(null, 'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at 2:38 AM.');
    expect(usage.context).toMatchObject({ usageLimit: true, resetAt: Date.UTC(2026, 10, 26, 2, 38) });
  });

  it('reads a status from the words when no field carries one', () => {
    expect(statusOfFailure(null, 'API Error: 500 {"type":"error"}')).toBe(500);
    expect(statusOfFailure(null, 'API Error: Request rejected (429) · slow down')).toBe(429);
    expect(statusOfFailure(null, 'line 429 of main.rs')).toBeNull();
    expect(statusOfFailure(503, 'last status: 429')).toBe(503);
  });
});
