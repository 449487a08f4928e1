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

  it('says why a delay is not the policy\'s own (a runtime reset time)', () => {
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
