import { describe, expect, it } from 'vitest';
import type { AttemptView, ErrorEnvelope, RunDetail, RunSummary, TaskView } from '../../core/service/api.js';
import { compareRuns } from './compare-runs.js';
import { costDifference, differingTasks } from './compare-view.js';

const summary = (id: string, over: Partial<RunSummary> = {}): RunSummary => ({
  id,
  flow: 'user/release.prose',
  flowName: 'release',
  status: 'completed',
  clock: 'real',
  startedAt: 0,
  endedAt: 3_000,
  durationMs: 3_000,
  startedWall: 0,
  endedWall: 3_000,
  step: 1,
  maxSteps: 100,
  attempts: 1,
  errorCount: 0,
  retrying: null,
  resumedFrom: null,
  retryOf: null,
  lastError: null,
  endingError: null,
  ...over,
});

const attempt = (n: number, start: number, end: number, code: ErrorEnvelope['code'] | null = null): AttemptView => ({
  attempt: n,
  startedAt: start,
  endedAt: end,
  status: code ? 'failed' : 'succeeded',
  error: code
    ? {
        category: 'runtime',
        code,
        message: 'slow down',
        origin: 'runtime:fake',
        recoverable: true,
        recovery_hint: null,
        context: {},
        timestamp: end,
        correlation: { project: null, flow: null, run: null, step: null, task: null, attempt: n },
      }
    : null,
  delayAfterMs: null,
  strategy: null,
  nextAttemptAt: null,
});

const task = (id: string, attempts: AttemptView[], over: Partial<TaskView> = {}): TaskView => ({
  taskId: id,
  step: 1,
  ordinal: Number(id.split(':')[1]),
  name: `task ${id}`,
  agent: 'assistant',
  status: 'succeeded',
  maxAttempts: 3,
  attempts,
  error: null,
  output: 'done',
  ...over,
});

const detail = (run: RunSummary, tasks: TaskView[]): RunDetail => ({
  run,
  steps: [],
  tasks,
  lastSeq: 1,
  lineage: { retries: [], resumes: [], previous: null },
});

describe('comparing two runs', () => {
  it('matches tasks by id, marks what differs, and shows a task only one run has as absent on the other side', () => {
    const left = detail(summary('a', { status: 'failed', attempts: 2, errorCount: 2, lastError: { code: 'RUNTIME_RATE_LIMIT', message: 'slow down' } }), [
      task('1:0', [attempt(1, 0, 1_000, 'RUNTIME_RATE_LIMIT'), attempt(2, 2_000, 2_500, 'RUNTIME_RATE_LIMIT')], { status: 'failed', output: null }),
    ]);
    const right = detail(summary('b'), [task('1:0', [attempt(1, 0, 1_500)]), task('1:1', [attempt(1, 0, 200)], { output: 'second' })]);
    const groups = compareRuns(left, right);
    expect(groups.map((g) => g.title)).toEqual(['Run', 'task 1:0 (task 1:0)', 'task 1:1 (task 1:1)']);
    const first = groups[1]?.rows ?? [];
    const cell = (key: string) => first.find((r) => r.key === `1:0/${key}`);
    expect(cell('attempts')).toMatchObject({ left: '2 of 3', right: '1 of 3', differs: true });
    expect(cell('time')).toMatchObject({ left: '1.5s', right: '1.5s', differs: false });
    expect(cell('errors')).toMatchObject({ left: 'RUNTIME_RATE_LIMIT, RUNTIME_RATE_LIMIT', right: 'none', differs: true });
    expect(cell('output')).toMatchObject({ left: '—', right: 'done', differs: true, block: true });
    expect(groups[2]?.rows.find((r) => r.key === '1:1/output')).toMatchObject({ left: null, right: 'second', differs: true });
    expect(groups[0]?.rows.find((r) => r.key === 'flow')?.differs).toBe(false);
  });

  it('says why each run ended, never its newest error: a failure’s chain, a cancel’s reason, nothing for a completed run', () => {
    const crash: ErrorEnvelope = {
      ...(attempt(1, 0, 1_000, 'RUNTIME_CRASHED').error as ErrorEnvelope),
      message: 'exited with code 2',
      context: { exitCode: 2 },
    };
    const failed = detail(
      summary('a', {
        status: 'failed',
        errorCount: 2,
        // The newest error is a retried timeout of a cleanup; the run failed because Deploy crashed.
        lastError: { code: 'RUNTIME_TIMEOUT', message: 'timed out' },
        endingError: {
          code: 'RUNTIME_CRASHED',
          category: 'runtime',
          origin: 'runtime:fake',
          message: 'exited with code 2',
          step: 1,
          taskId: '1:0',
          attempt: 1,
          rootCode: 'RUNTIME_CRASHED',
          chain: [
            {
              seq: 9,
              code: 'RUNTIME_CRASHED',
              category: 'runtime',
              origin: 'runtime:fake',
              message: 'exited with code 2',
              step: 1,
              taskId: '1:0',
              attempt: 1,
              how: null,
            },
          ],
        },
      }),
      [task('1:0', [{ ...attempt(1, 0, 1_000, 'RUNTIME_CRASHED'), error: crash }], { name: 'Deploy', status: 'failed' })],
    );
    const cancelled = detail(
      summary('b', {
        status: 'cancelled',
        endingError: {
          code: 'SYSTEM_CANCELLED',
          category: 'system',
          origin: 'system',
          message: 'stopped from the window',
          step: 2,
          taskId: null,
          attempt: null,
          rootCode: 'SYSTEM_CANCELLED',
          chain: [
            {
              seq: null,
              code: 'SYSTEM_CANCELLED',
              category: 'system',
              origin: 'system',
              message: 'stopped from the window',
              step: 2,
              taskId: null,
              attempt: null,
              how: null,
            },
          ],
        },
      }),
      [],
    );
    const completed = detail(summary('c', { errorCount: 3, lastError: { code: 'RUNTIME_RATE_LIMIT', message: 'slow down' } }), []);
    const endedBy = (l: RunDetail, r: RunDetail) => compareRuns(l, r)[0]?.rows.find((row) => row.key === 'ending-error');
    expect(endedBy(failed, cancelled)).toMatchObject({
      label: 'Ended by',
      left: 'RUNTIME_CRASHED exit 2 in Deploy attempt 1 · exited with code 2',
      right: 'Cancelled during step 2: stopped from the window',
    });
    expect(endedBy(completed, completed)).toMatchObject({ left: 'none', right: 'none', differs: false });
    expect(compareRuns(failed, completed)[0]?.rows.some((row) => /RUNTIME_TIMEOUT|RUNTIME_RATE_LIMIT/.test(`${row.left} ${row.right}`))).toBe(false);
  });

  it('has cost and token rows: runs of the same tasks that cost $1.72 and $2.58 do not read "0 of 1 task differs" alone', () => {
    const usage = (costUsd: number, failedCostUsd = 0) => ({
      attempts: 2,
      failedAttempts: failedCostUsd > 0 ? 1 : 0,
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd,
      failedCostUsd,
      unknownCostAttempts: 0,
      countedIn: null,
    });
    const withUsage = (a: AttemptView, costUsd: number): AttemptView => ({ ...a, usage: { source: 'result', inputTokens: 500, outputTokens: 50, costUsd } });
    const cheap = detail(summary('a', { usage: usage(1.72) }), [task('1:0', [withUsage(attempt(1, 0, 1_000), 1.72)])]);
    const dear = detail(summary('b', { usage: usage(2.58, 0.86) }), [
      task('1:0', [withUsage(attempt(1, 0, 600, 'RUNTIME_RATE_LIMIT'), 0.86), withUsage(attempt(2, 600, 1_000), 1.72)]),
    ]);
    const groups = compareRuns(cheap, dear);
    const run = groups[0]?.rows ?? [];
    expect(run.find((r) => r.key === 'cost')).toMatchObject({ left: '$1.72', right: '$2.58 · $0.86 retried · $1.72 successful', differs: true });
    expect(run.find((r) => r.key === 'tokens')).toMatchObject({ left: '1,000 in · 100 out', differs: false });
    expect(groups[1]?.rows.find((r) => r.key === '1:0/cost')).toMatchObject({
      left: '$1.72',
      right: '$2.58 · $0.86 retried · $1.72 successful',
      differs: true,
    });
    expect(costDifference(groups)).toBe('$1.72 vs $2.58');
    // A failed run's task spend is the failed run's, as its header says, not its attempts' split.
    const lost = detail(summary('f', { status: 'failed', usage: usage(0.86, 0.86) }), [
      task('1:0', [withUsage(attempt(1, 0, 600, 'RUNTIME_RATE_LIMIT'), 0.86)]),
    ]);
    expect(compareRuns(cheap, lost)[1]?.rows.find((r) => r.key === '1:0/cost')).toMatchObject({ left: '$1.72', right: '$0.86 · failed run' });
    expect(differingTasks(groups).differ).toBe(1);
    // The same spend on both sides: no difference said; no usage at all reads "none reported", never $0.00.
    expect(costDifference(compareRuns(cheap, cheap))).toBeNull();
    const none = detail(summary('c'), [task('1:0', [attempt(1, 0, 1_000)])]);
    expect(compareRuns(none, none)[0]?.rows.find((r) => r.key === 'cost')).toMatchObject({ left: 'none reported', right: 'none reported' });
  });
});
