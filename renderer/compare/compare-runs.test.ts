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
});
