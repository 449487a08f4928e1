import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressPrinter } from './progress.js';

function printed(events: Parameters<ProgressPrinter['handle']>[0][]): string {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const printer = new ProgressPrinter(out, () => 0);
  for (const event of events) printer.handle(event);
  return chunks.join('');
}

describe('progress: retryScheduled', () => {
  const ref = { runId: 'run_1', seq: 1, ts: 0, step: 1, ordinal: 0, taskId: '1:0' };

  it("says why a delay is not the policy's own (a runtime reset time)", () => {
    const text = printed([
      { type: 'taskStarted', ...ref, name: 'Fix the bug', agent: 'coder', maxAttempts: 3 },
      {
        type: 'retryScheduled',
        ...ref,
        attempt: 1,
        delayMs: 3 * 3_600_000,
        strategy: 'runtime_reset_time',
        nextAttemptAt: 3 * 3_600_000,
        reason: "waiting for the runtime's reset time 2026-11-23T15:00:00.000Z",
      },
    ]);
    expect(text).toContain("  ↻ Fix the bug · next attempt in 3h (runtime_reset_time: waiting for the runtime's reset time 2026-11-23T15:00:00.000Z)\n");
  });

  it('shows only the strategy when there is no reason', () => {
    const text = printed([{ type: 'retryScheduled', ...ref, attempt: 1, delayMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: 30_000 }]);
    expect(text).toContain('  ↻ 1:0 · next attempt in 30s (rate_limit_exponential)\n');
  });
});

describe('progress: the failure model', () => {
  const ref = { runId: 'run_1', ts: 0, step: 1, ordinal: 1, taskId: '1:1' };
  const envelope = (code: 'RUNTIME_CRASHED' | 'POLICY_RETRY_LIMIT_EXCEEDED', message: string) => ({
    category: code === 'RUNTIME_CRASHED' ? ('runtime' as const) : ('policy' as const),
    code,
    message,
    origin: code === 'RUNTIME_CRASHED' ? 'runtime:fake' : 'policy',
    recoverable: false,
    recovery_hint: null,
    context: {},
    timestamp: 0,
    correlation: { project: null, flow: null, run: 'run_1', step: 1, task: '1:1', attempt: 3 },
  });

  it('shows an attempt a sibling cancelled, a forced cancel, and the ending error’s causes', () => {
    const text = printed([
      { type: 'attemptCancelled', ...ref, seq: 1, attempt: 1, durationMs: 5, by: 'sibling', reported: { outcome: 'succeeded' } },
      { type: 'cancelRequested', runId: 'run_1', seq: 2, ts: 0, commandId: 'c2', reason: 'again', alreadyCancelling: true, forced: true },
      {
        type: 'runCancelled',
        runId: 'run_1',
        seq: 3,
        ts: 0,
        cause: { commandId: 'c1', reason: 'stop' },
        correlation: { run: 'run_1', step: 1, epoch: 1 },
        forced: true,
      },
      {
        type: 'runFailed',
        runId: 'run_2',
        seq: 9,
        ts: 0,
        error: { ...envelope('POLICY_RETRY_LIMIT_EXCEEDED', 'gave up after 3 attempts'), cause: envelope('RUNTIME_CRASHED', 'exit 11') },
      },
    ]);
    expect(text).toContain('  ⊘ 1:1 · attempt 1 cancelled: a sibling branch failed (it had succeeded)\n');
    expect(text).toContain('■ cancel requested (c2) — forcing: running agents get SIGKILL now\n');
    expect(text).toContain('■ cancelled by force (stop)\n');
    expect(text).toContain('✘ failed: POLICY_RETRY_LIMIT_EXCEEDED — gave up after 3 attempts\n  ← RUNTIME_CRASHED — exit 11\n');
  });
});

describe('progress: facts at once, verdicts when due', () => {
  const at = (ordinal: number) => ({ runId: 'run_1', ts: 0, step: 1, ordinal, taskId: `1:${ordinal}` });
  const crashed = {
    category: 'runtime' as const,
    code: 'RUNTIME_CRASHED' as const,
    message: 'runtime fake exited with code 3',
    origin: 'runtime:fake',
    recoverable: true,
    recovery_hint: null,
    context: {},
    timestamp: 0,
    correlation: { project: null, flow: null, run: 'run_1', step: 1, task: '1:1', attempt: 1 },
  };

  it('prints a failure as it happens with the branches its verdict waits for, then the verdict', () => {
    const text = printed([
      { type: 'taskStarted', ...at(0), seq: 1, name: 'Review the notes', agent: 'slow', maxAttempts: 1 },
      { type: 'taskStarted', ...at(1), seq: 2, name: 'Check the links', agent: 'fast', maxAttempts: 1 },
      { type: 'attemptFailed', ...at(1), seq: 3, attempt: 1, durationMs: 5, error: crashed, awaiting: ['1:0'] },
      { type: 'attemptJudgedCancelled', ...at(1), seq: 4, attempt: 1, by: 'sibling' },
    ]);
    expect(text).toContain(
      '  ✗ Check the links · attempt 1 failed: RUNTIME_CRASHED — runtime fake exited with code 3\n    whether it counts waits for Review the notes to end (rule 6)\n',
    );
    expect(text).toContain('  ⊘ Check the links · attempt 1 counts as cancelled: a lower sibling branch failed first\n');
  });
});
