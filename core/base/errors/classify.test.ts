import { describe, expect, it } from 'vitest';
import { classifyObservation, malformedOutput, type RuntimeObservation } from './classify.js';

const observe = (overrides: Partial<RuntimeObservation>): RuntimeObservation => ({
  runtimeName: 'command',
  exitCode: 0,
  signal: null,
  timedOut: false,
  stdout: '',
  stderr: '',
  durationMs: 12,
  ...overrides,
});

const classify = (overrides: Partial<RuntimeObservation>) => classifyObservation(observe(overrides));

describe('classifyObservation', () => {
  it('exit 0 is no failure, whatever stderr says', () => {
    expect(classify({})).toBeNull();
    expect(classify({ stderr: 'warning: 429 earlier, retried' })).toBeNull();
  });

  it('429 / "rate limit" / "overloaded" on a failure → RUNTIME_RATE_LIMIT', () => {
    for (const stderr of ['Error: 429 Too Many Requests', 'You hit the rate limit, slow down', 'rate_limit_error', 'API is Overloaded']) {
      const e = classify({ exitCode: 1, stderr });
      expect(e?.code, stderr).toBe('RUNTIME_RATE_LIMIT');
      expect(e?.origin).toBe('runtime:command');
      expect(e?.recoverable).toBe(true);
    }
    expect(classify({ exitCode: 1, stdout: 'status 529 overloaded' })?.code).toBe('RUNTIME_RATE_LIMIT');
    expect(classify({ exitCode: 1, stderr: 'Error: 429 Too Many Requests\nmore' })?.message).toBe(
      'runtime command was rate limited: Error: 429 Too Many Requests',
    );
  });

  it('a timeout observed by the runtime → RUNTIME_TIMEOUT naming the limit', () => {
    const e = classify({ timedOut: true, exitCode: null, signal: 'SIGTERM', timeoutMs: 30_000 });
    expect(e?.code).toBe('RUNTIME_TIMEOUT');
    expect(e?.message).toBe('runtime command exceeded its timeout of 30000ms');
    expect(classify({ timedOut: true, exitCode: null, signal: 'SIGKILL' })?.message).toBe('runtime command exceeded its timeout');
  });

  it('exit 124 (timeout(1) convention) → RUNTIME_TIMEOUT', () => {
    const e = classify({ exitCode: 124, stderr: 'timed out' });
    expect(e?.code).toBe('RUNTIME_TIMEOUT');
    expect(e?.message).toBe('runtime command reported a timeout (exit 124)');
  });

  it('death by signal → RUNTIME_CRASHED', () => {
    const e = classify({ exitCode: null, signal: 'SIGSEGV' });
    expect(e?.code).toBe('RUNTIME_CRASHED');
    expect(e?.message).toBe('runtime command was killed by SIGSEGV');
    expect(e?.context).toEqual({ exitCode: null, signal: 'SIGSEGV', stderrTail: '' });
  });

  it('a spawn failure (ENOENT) → RUNTIME_CONNECTION_FAILED, not recoverable', () => {
    const e = classify({ exitCode: null, spawnError: { code: 'ENOENT', message: 'command not found: "nope" (ENOENT)' } });
    expect(e?.code).toBe('RUNTIME_CONNECTION_FAILED');
    expect(e?.recoverable).toBe(false);
    expect(e?.message).toBe('could not start runtime command: command not found: "nope" (ENOENT)');
    expect(e?.context.spawnCode).toBe('ENOENT');
  });

  it('exit 127 (shell: command not found) → RUNTIME_CONNECTION_FAILED', () => {
    const e = classify({ exitCode: 127, stderr: 'sh: 1: nope: not found' });
    expect(e?.code).toBe('RUNTIME_CONNECTION_FAILED');
    expect(e?.message).toBe('runtime command: command not found (exit 127)');
  });

  it('a plain non-zero exit → RUNTIME_CRASHED with the first stderr line', () => {
    expect(classify({ exitCode: 2, stderr: '\n  usage: tool [options]  \nmore' })?.message).toBe('runtime command exited with code 2: usage: tool [options]');
    expect(classify({ exitCode: 2 })?.message).toBe('runtime command exited with code 2');
    expect(classify({ exitCode: 2 })?.code).toBe('RUNTIME_CRASHED');
  });

  it('keeps only the tail of a long stderr in the context', () => {
    const e = classify({ exitCode: 1, stderr: `${'x'.repeat(1000)}END` });
    expect(e?.context.stderrTail).toBe(`…${'x'.repeat(397)}END`);
  });

  it('ranks spawn failure over timeout over rate limit over exit code', () => {
    expect(classify({ timedOut: true, spawnError: { code: 'EACCES', message: 'denied' } })?.code).toBe('RUNTIME_CONNECTION_FAILED');
    expect(classify({ timedOut: true, exitCode: 1, stderr: '429' })?.code).toBe('RUNTIME_TIMEOUT');
    expect(classify({ exitCode: 124, stderr: 'rate limit' })?.code).toBe('RUNTIME_RATE_LIMIT');
  });
});

describe('malformedOutput', () => {
  it('is RUNTIME_OUTPUT_MALFORMED from the runtime, with the stdout tail', () => {
    const e = malformedOutput('claude-code', 'not JSON', '{oops');
    expect(e.toEnvelope()).toMatchObject({
      category: 'runtime',
      code: 'RUNTIME_OUTPUT_MALFORMED',
      origin: 'runtime:claude-code',
      message: 'runtime claude-code produced output that could not be parsed: not JSON',
      context: { stdoutTail: '{oops' },
      recoverable: true,
    });
  });
});
