import { describe, expect, it } from 'vitest';
import type { AttemptView, ErrorEnvelope, RunDetail, RunSummary, TaskView } from '../../core/service/api.js';
import { compareRuns } from './compare-runs.js';

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
    ? { category: 'runtime', code, message: 'slow down', origin: 'runtime:fake', recoverable: true, recovery_hint: null, context: {}, timestamp: end, correlation: { project: null, flow: null, run: null, step: null, task: null, attempt: n } }
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

const detail = (run: RunSummary, tasks: TaskView[]): RunDetail => ({ run, steps: [], tasks, lastSeq: 1, lineage: { retries: [], resumes: [], previous: null } });

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
    const crash: ErrorEnvelope = { ...(attempt(1, 0, 1_000, 'RUNTIME_CRASHED').error as ErrorEnvelope), message: 'exited with code 2', context: { exitCode: 2 } };
    const failed = detail(
      summary('a', {
        status: 'failed', errorCount: 2,
        // The newest error is a retried timeout of a cleanup; the run failed because Deploy crashed.
        lastError: { code: 'RUNTIME_TIMEOUT', message: 'timed out' },
        endingError: {
          code: 'RUNTIME_CRASHED', category: 'runtime', origin: 'runtime:fake', message: 'exited with code 2', step: 1, taskId: '1:0', attempt: 1, rootCode: 'RUNTIME_CRASHED',
          chain: [{ seq: 9, code: 'RUNTIME_CRASHED', category: 'runtime', origin: 'runtime:fake', message: 'exited with code 2', step: 1, taskId: '1:0', attempt: 1, how: null }],
        },
      }),
      [task('1:0', [{ ...attempt(1, 0, 1_000, 'RUNTIME_CRASHED'), error: crash }], { name: 'Deploy', status: 'failed' })],
    );
    const cancelled = detail(
      summary('b', {
        status: 'cancelled',
        endingError: {
          code: 'SYSTEM_CANCELLED', category: 'system', origin: 'system', message: 'stopped from the window', step: 2, taskId: null, attempt: null, rootCode: 'SYSTEM_CANCELLED',
          chain: [{ seq: null, code: 'SYSTEM_CANCELLED', category: 'system', origin: 'system', message: 'stopped from the window', step: 2, taskId: null, attempt: null, how: null }],
        },
      }),
      [],
    );
    const completed = detail(summary('c', { errorCount: 3, lastError: { code: 'RUNTIME_RATE_LIMIT', message: 'slow down' } }), []);
    const endedBy = (l: RunDetail, r: RunDetail) => compareRuns(l, r)[0]?.rows.find((row) => row.key === 'ending-error');
    expect(endedBy(failed, cancelled)).toMatchObject({
      label: 'Ended by', left: 'RUNTIME_CRASHED exit 2 in Deploy attempt 1 · exited with code 2', right: 'Cancelled during step 2: stopped from the window',
    });
    expect(endedBy(completed, completed)).toMatchObject({ left: 'none', right: 'none', differs: false });
    expect(compareRuns(failed, completed)[0]?.rows.some((row) => /RUNTIME_TIMEOUT|RUNTIME_RATE_LIMIT/.test(`${row.left} ${row.right}`))).toBe(false);
  });
});
