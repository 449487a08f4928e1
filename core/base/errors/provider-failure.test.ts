import { describe, expect, it } from 'vitest';
import { classifyProviderFailure, statusOfFailure } from './provider-failure.js';

/** The one classifier's table (docs/presets.md "One classifier"), with the words the real CLIs print (docs/real-agents.md). */

const NOW = Date.UTC(2026, 10, 26, 2, 0, 0);
const classify = (status: number | null, message: string) =>
  classifyProviderFailure({ runtime: 'codex-cli', status, message, clock: { now: NOW, timeZone: 'UTC' } });

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
    // Error types providers and SDKs name failures by (a span's error.type, an exception's type), alone or before the message.
    [400, "context_length_exceeded: This model's maximum context length is 128000 tokens.", 'USER_INVALID_CONFIG', 400],
    [null, 'context_length_exceeded', 'USER_INVALID_CONFIG', null],
    [null, 'invalid_request_error: prompt is too long: 215000 tokens > 200000 maximum', 'USER_INVALID_CONFIG', null],
    [null, 'request_too_large', 'USER_INVALID_CONFIG', null],
    [null, 'rate_limit_exceeded', 'RUNTIME_RATE_LIMIT', null],
    [null, 'RateLimitError', 'RUNTIME_RATE_LIMIT', null],
    [null, 'rate_limit_error: Number of request tokens has exceeded your per-minute rate limit', 'RUNTIME_RATE_LIMIT', null],
    [null, 'overloaded_error', 'RUNTIME_RATE_LIMIT', null],
    [null, 'insufficient_quota: You exceeded your current quota, please check your plan and billing details.', 'RUNTIME_RATE_LIMIT', null],
    [null, 'AuthenticationError', 'USER_INVALID_CONFIG', null],
    [null, 'invalid_api_key', 'USER_INVALID_CONFIG', null],
    [null, 'authentication_error: invalid x-api-key', 'USER_INVALID_CONFIG', null],
    [null, 'AI_APICallError: Incorrect API key provided: stub-***.', 'USER_INVALID_CONFIG', null],
    [null, 'AI_LoadAPIKeyError: OpenAI API key is missing. Pass it using the apiKey parameter.', 'USER_INVALID_CONFIG', null],
    [null, 'PermissionDeniedError', 'USER_INVALID_CONFIG', null],
    [null, 'permission_error', 'USER_INVALID_CONFIG', null],
    [null, 'InternalServerError', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'api_error: Internal server error', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'APIConnectionError: Connection error.', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'AI_APICallError: Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9', 'RUNTIME_PROVIDER_ERROR', null],
    [null, 'APIConnectionTimeoutError: Request timed out.', 'RUNTIME_TIMEOUT', null],
    [null, 'BadRequestError', 'USER_INVALID_CONFIG', null],
    [null, 'not_found_error: model: claude-nope', 'USER_INVALID_CONFIG', null],
    [null, 'AI_RetryError: Failed after 3 attempts. Last error: Rate limit reached for requests per min.', 'RUNTIME_RATE_LIMIT', null],
    [null, 'AI_APICallError: something odd', 'RUNTIME_UNKNOWN', null],
  ] as const)('%s %s → %s', (status, message, code, statusCode) => {
    const error = classify(status, message);
    expect(error.code).toBe(code);
    expect(error.context.statusCode).toBe(statusCode);
  });

  it("a 401 or 403 is the user's, never retried; a 5xx and a timeout are retried", () => {
    expect(classify(403, 'Forbidden')).toMatchObject({ recoverable: false, origin: 'user' });
    expect(classify(401, 'Invalid API key')).toMatchObject({ recoverable: false, origin: 'user' });
    expect(classify(502, 'Bad gateway')).toMatchObject({ recoverable: true, origin: 'runtime:codex-cli' });
    expect(classify(504, '')).toMatchObject({ code: 'RUNTIME_TIMEOUT', recoverable: true });
  });

  it("a request larger than the model's context is the user's to shorten, never retried", () => {
    const error = classify(400, "context_length_exceeded: This model's maximum context length is 128000 tokens.");
    expect(error).toMatchObject({ code: 'USER_INVALID_CONFIG', recoverable: false, origin: 'user' });
    expect(error.message).toContain("larger than the model's context window");
    expect(error.recoveryHint).toContain('Shorten the prompt');
  });

  it('names --skip-git-repo-check when Codex refuses a directory that is not a trusted git repository', () => {
    const error = classify(null, 'Not inside a trusted directory and --skip-git-repo-check was not specified.');
    expect(error).toMatchObject({ code: 'USER_INVALID_CONFIG', recoverable: false });
    expect(error.recoveryHint).toContain('--skip-git-repo-check');
  });

  it("honours a retry-after (given or stated) and a usage limit's reset time as context.resetAt", () => {
    const given = classifyProviderFailure({ runtime: 'claude-code', status: 429, message: 'rate limited', retryAfterMs: 30_000, clock: { now: NOW } });
    expect(given.context.resetAt).toBe(NOW + 30_000);
    expect(classify(429, 'Too Many Requests; retry-after: 12').context.resetAt).toBe(NOW + 12_000);
    expect(classify(429, 'Too Many Requests').context.resetAt).toBeUndefined();
    const usage = classify(null, 'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at 2:38 AM.');
    // "2:38 AM" is printed to the minute: the reset lies inside it, so the wait ends with it.
    expect(usage.context).toMatchObject({ usageLimit: true, resetAt: Date.UTC(2026, 10, 26, 2, 39) });
  });

  it('reads a status from the words when no field carries one', () => {
    expect(statusOfFailure(null, 'API Error: 500 {"type":"error"}')).toBe(500);
    expect(statusOfFailure(null, 'API Error: Request rejected (429) · slow down')).toBe(429);
    expect(statusOfFailure(null, 'line 429 of main.rs')).toBeNull();
    expect(statusOfFailure(503, 'last status: 429')).toBe(503);
  });
});
