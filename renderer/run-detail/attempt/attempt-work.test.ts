import { describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../core/service/api.js';
import { attemptKey, indexAttemptWork, runWorkOf, workSummary } from './attempt-work.js';

const base = { runId: 'r', ts: 0 };
let seq = 0;
const ev = (body: Record<string, unknown>): HivewatchEvent => ({ ...base, seq: ++seq, ...body }) as HivewatchEvent;
const ref = { step: 1, ordinal: 0, taskId: '1:0' };
const check = (attempt: number, ok: boolean, outputTail: string) =>
  ev({
    type: 'checkFinished',
    ...ref,
    attempt,
    name: 'tests',
    kind: 'check',
    ok,
    exitCode: ok ? 0 : 1,
    signal: null,
    timedOut: false,
    durationMs: 1200,
    outputTail,
  });

const journal: HivewatchEvent[] = [
  ev({ type: 'workspaceReady', repo: '/repo', branch: 'hivewatch/r', base: 'aaaa', worktreeDir: '/tmp/w' }),
  ev({ type: 'attemptStarted', ...ref, attempt: 1 }),
  ev({ type: 'attemptChanges', ...ref, attempt: 1, changed: [{ path: 'src/add.sh', status: 'M' }], diffStat: ' src/add.sh | 2 +-', outsideScope: [] }),
  check(1, false, 'FAIL: expected 5'),
  ev({ type: 'attemptStarted', ...ref, attempt: 2, feedback: 'The previous attempt (1) failed' }),
  ev({ type: 'attemptChanges', ...ref, attempt: 2, changed: [{ path: 'src/add.sh', status: 'M' }], diffStat: ' src/add.sh | 2 +-', outsideScope: [] }),
  check(2, true, 'ok'),
  ev({ type: 'attemptCommitted', ...ref, attempt: 2, commit: 'bbbbbbbbbbbb', branch: 'hivewatch-tasks/r/1-0' }),
  ev({ type: 'branchMerged', step: 1, branch: 'hivewatch/r', head: 'cccc', merged: [{ taskId: '1:0', commit: 'bbbbbbbbbbbb' }] }),
];

describe('attempt work from the journal', () => {
  it('collects checks, changes, feedback and the commit per attempt', () => {
    const index = indexAttemptWork(journal);
    expect(index.get(attemptKey('1:0', 1))).toMatchObject({
      checks: [{ name: 'tests', ok: false, outputTail: 'FAIL: expected 5' }],
      commit: null,
      feedback: null,
    });
    expect(index.get(attemptKey('1:0', 2))).toMatchObject({ checks: [{ ok: true }], commit: 'bbbbbbbbbbbb', feedback: 'The previous attempt (1) failed' });
    expect(workSummary(index.get(attemptKey('1:0', 1)))).toBe('checks 0/1 passed · 1 file changed');
    expect(workSummary(index.get(attemptKey('1:0', 2)))).toBe('checks 1/1 passed · 1 file changed · committed bbbbbbbbbb');
    expect(workSummary(undefined)).toBeNull();
  });

  it("follows the run branch's head through its merges", () => {
    expect(runWorkOf(journal)).toEqual({ repo: '/repo', branch: 'hivewatch/r', base: 'aaaa', head: 'cccc', merges: 1 });
    expect(runWorkOf(journal.slice(1))).toBeNull();
  });
});
