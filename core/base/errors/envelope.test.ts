import { describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from './envelope.js';
import { CancelledError, HivewatchError, isCancelled, parseEnvelope, toHivewatchError } from './hivewatch-error.js';

const sample = (): HivewatchError =>
  new HivewatchError('RUNTIME_RATE_LIMIT', {
    message: 'runtime fake was rate limited: 429',
    origin: 'runtime:fake',
    context: { exitCode: 1, stderrTail: '429', nested: { list: [1, 'two', null] } },
    timestamp: 1767225600000,
    correlation: { project: 'p', flow: 'f.prose', run: 'r-1', step: 2, task: 't-3', attempt: 4 },
  });

const valid = (): Record<string, unknown> => JSON.parse(JSON.stringify(sample().toEnvelope())) as Record<string, unknown>;

describe('HivewatchError', () => {
  it('takes category, recoverability and hint from its code', () => {
    const e = new HivewatchError('RUNTIME_TIMEOUT', { message: 'late' });
    expect(e).toMatchObject({
      category: 'runtime',
      recoverable: true,
      recoveryHint: 'Retry with an extended timeout',
      origin: 'runtime:unknown',
      timestamp: 0,
    });
    expect(e.correlation).toEqual({ project: null, flow: null, run: null, step: null, task: null, attempt: null });
    expect(e).toBeInstanceOf(Error);
  });

  it('refuses an invalid origin', () => {
    expect(() => new HivewatchError('RUNTIME_TIMEOUT', { message: 'x', origin: 'runtime:a b' })).toThrow(new TypeError('invalid error origin "runtime:a b"'));
  });

  it('gains correlation without losing anything', () => {
    const e = new HivewatchError('AGENT_NO_CHANGES', { message: 'm', origin: 'agent:coder', correlation: { run: 'r' } }).withCorrelation(
      { step: 1, attempt: 2 },
      99,
    );
    expect(e.toEnvelope()).toMatchObject({
      code: 'AGENT_NO_CHANGES',
      origin: 'agent:coder',
      timestamp: 99,
      correlation: { run: 'r', step: 1, attempt: 2, task: null },
    });
  });

  it('round-trips through JSON: toEnvelope → JSON → parseEnvelope → fromEnvelope', () => {
    const original = sample();
    const wire = JSON.stringify(original.toEnvelope());
    const back = HivewatchError.fromEnvelope(parseEnvelope(JSON.parse(wire)));
    expect(back.toEnvelope()).toEqual(original.toEnvelope());
    expect(JSON.stringify(back)).toBe(wire);
    expect(back.message).toBe(original.message);
  });

  it('keeps an overridden recoverability and a null hint through the round trip', () => {
    const e = new HivewatchError('USER_THROWN', { message: 'from the flow', origin: 'user', recoverable: false, recoveryHint: null });
    expect(HivewatchError.fromEnvelope(parseEnvelope(JSON.parse(JSON.stringify(e)))).toEnvelope()).toEqual(e.toEnvelope());
  });

  it('turns a foreign throwable into SYSTEM_INVARIANT_VIOLATED, and keeps its own', () => {
    const e = toHivewatchError(new RangeError('bad index'));
    expect(e).toMatchObject({ code: 'SYSTEM_INVARIANT_VIOLATED', category: 'system', origin: 'system', message: 'unexpected RangeError: bad index' });
    expect(toHivewatchError('text').message).toBe('unexpected string: text');
    const own = sample();
    expect(toHivewatchError(own)).toBe(own);
  });

  it('keeps cancellation apart from failures', () => {
    expect(isCancelled(new CancelledError())).toBe(true);
    expect(new CancelledError().message).toBe('cancelled by operator');
    expect(isCancelled(sample())).toBe(false);
  });

  it('makes a cancellation a HivewatchError of its own code, which never passes for a failure', () => {
    const cancelled = new CancelledError('stopped by the operator');
    expect(cancelled).toBeInstanceOf(HivewatchError);
    expect(cancelled).toMatchObject({ code: 'SYSTEM_CANCELLED', category: 'system', origin: 'system', name: 'CancelledError' });
    expect(cancelled.reason).toBe('stopped by the operator');
    // Where only a failure can arrive, a cancellation is a broken invariant, worded as any foreign throw.
    expect(toHivewatchError(cancelled)).toMatchObject({
      code: 'SYSTEM_INVARIANT_VIOLATED',
      message: 'unexpected CancelledError: stopped by the operator',
    });
  });
});

describe('parseEnvelope', () => {
  const rejects = (mutate: (v: Record<string, unknown>) => void, message: string): void => {
    const v = valid();
    mutate(v);
    expect(() => parseEnvelope(v)).toThrow(new TypeError(message));
  };

  it('accepts a valid envelope and fills missing correlation levels with null', () => {
    const v = valid();
    v.correlation = { run: 'r' };
    expect(parseEnvelope(v).correlation).toEqual({ project: null, flow: null, run: 'r', step: null, task: null, attempt: null });
  });

  it('names the first bad field, exactly', () => {
    expect(() => parseEnvelope(null)).toThrow(new TypeError('invalid error envelope: envelope must be an object'));
    expect(() => parseEnvelope('text')).toThrow(new TypeError('invalid error envelope: envelope must be an object'));
    rejects(
      (v) => void (v.category = 'network'),
      'invalid error envelope: category must be one of system, runtime, agent, scope, verification, git, user, policy',
    );
    rejects((v) => void (v.code = 'RUNTIME_NOPE'), 'invalid error envelope: code must be a known error code');
    rejects((v) => void (v.code = 'USER_THROWN'), 'invalid error envelope: code must be a code of category runtime');
    rejects((v) => void (v.message = 42), 'invalid error envelope: message must be a string');
    rejects((v) => void (v.origin = 'nowhere'), 'invalid error envelope: origin must be a valid origin');
    rejects((v) => void (v.recoverable = 'yes'), 'invalid error envelope: recoverable must be a boolean');
    rejects((v) => void (v.recovery_hint = 3), 'invalid error envelope: recovery_hint must be a string or null');
    rejects((v) => void (v.context = []), 'invalid error envelope: context must be an object');
    rejects((v) => void (v.context = null), 'invalid error envelope: context must be an object');
    rejects((v) => void (v.timestamp = '2026-01-01'), 'invalid error envelope: timestamp must be a number');
    rejects((v) => void (v.correlation = null), 'invalid error envelope: correlation must be an object');
    rejects((v) => void ((v.correlation as Record<string, unknown>).run = 7), 'invalid error envelope: correlation.run must be a string or null');
    rejects((v) => void ((v.correlation as Record<string, unknown>).step = '2'), 'invalid error envelope: correlation.step must be a number or null');
  });

  it('returns plain data (an ErrorEnvelope), not the input object', () => {
    const v = valid();
    const parsed: ErrorEnvelope = parseEnvelope(v);
    expect(parsed).not.toBe(v);
    expect(parsed).toEqual(v);
  });
});
