import { describe, expect, it } from 'vitest';
import { checkError, outputTail, type CommandRecord } from './verify.js';

const record = (over: Partial<CommandRecord>): CommandRecord => ({
  ok: false,
  exitCode: 1,
  signal: null,
  timedOut: false,
  cancelled: false,
  durationMs: 10,
  outputTail: 'boom',
  ...over,
});

describe('a failed check in the taxonomy (hivemind-error-model.md §3.5)', () => {
  it('exit ≠ 0 is a recoverable VERIFICATION_CHECK_FAILED from check:<name> with its output', () => {
    const error = checkError('tests', 'npm test', record({ exitCode: 2 }), 60_000);
    expect(error).toMatchObject({
      code: 'VERIFICATION_CHECK_FAILED',
      origin: 'check:tests',
      recoverable: true,
      message: 'check tests (npm test) failed with exit code 2',
    });
    expect(error.context).toMatchObject({ check: 'tests', exitCode: 2, outputTail: 'boom' });
  });

  it('past its timeout is VERIFICATION_TIMEOUT; killed by a signal is VERIFICATION_CRASH', () => {
    expect(checkError('lint', 'npm run lint', record({ timedOut: true, exitCode: null, signal: 'SIGTERM' }), 90_000)).toMatchObject({
      code: 'VERIFICATION_TIMEOUT',
      message: 'check lint (npm run lint) ran past its 90 s timeout',
    });
    expect(checkError('lint', 'npm run lint', record({ exitCode: null, signal: 'SIGKILL' }), 90_000)).toMatchObject({
      code: 'VERIFICATION_CRASH',
      message: 'check lint (npm run lint) was killed by SIGKILL',
    });
  });

  it('keeps the end of long output', () => {
    const tail = outputTail('a'.repeat(10), 'b'.repeat(10), 8);
    expect(tail).toBe('…bbbbbbb');
    expect(outputTail('out\n', 'err\n')).toBe('out\nerr');
  });
});
