import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../core/service/api.js';
import { commandLineText, exitText, indexAttemptInspections } from './attempt-inspection.js';

const ref = { runId: 'r', ts: 0, step: 1, ordinal: 0, taskId: '1:0' };

describe('attempt inspection from the journal', () => {
  it('pairs each attempt’s prompt or argv with its end, and gives nulls for an old journal', () => {
    const events: HivewatchEvent[] = [
      { ...ref, seq: 1, type: 'attemptStarted', attempt: 1, prompt: 'Explain queues' },
      {
        ...ref,
        seq: 2,
        type: 'attemptSucceeded',
        attempt: 1,
        durationMs: 40,
        trace: { output: 'the answer', exitCode: 0, signal: null, stdoutTail: '{}', stderrTail: '' },
      },
      { ...ref, taskId: '1:1', ordinal: 1, seq: 3, type: 'attemptStarted', attempt: 1, argv: ['sh', '-c', 'exit 3'] },
      { ...ref, taskId: '1:2', ordinal: 2, seq: 4, type: 'attemptStarted', attempt: 1 },
    ];
    const index = indexAttemptInspections(events);
    expect(index.get('1:0#1')).toEqual({
      prompt: 'Explain queues',
      argv: null,
      trace: { output: 'the answer', exitCode: 0, signal: null, stdoutTail: '{}', stderrTail: '' },
      durationMs: 40,
    });
    expect(index.get('1:1#1')).toEqual({ prompt: null, argv: ['sh', '-c', 'exit 3'], trace: null, durationMs: null });
    expect(index.get('1:2#1')).toEqual({ prompt: null, argv: null, trace: null, durationMs: null });
  });

  it('quotes a command line for a POSIX shell only where needed', () => {
    expect(commandLineText(['sh', '-c', "echo it's; exit 3", '--', ''])).toBe(`sh -c 'echo it'\\''s; exit 3' -- ''`);
    expect(commandLineText(['claude', '--model=opus', 'a/b.txt'])).toBe('claude --model=opus a/b.txt');
  });

  it('says how a process ended', () => {
    const base = { stdoutTail: '', stderrTail: '' };
    expect(exitText({ ...base, exitCode: 3, signal: null })).toBe('exit 3');
    expect(exitText({ ...base, exitCode: null, signal: 'SIGKILL' })).toBe('killed by SIGKILL');
    expect(exitText(null)).toBeNull();
  });
});
