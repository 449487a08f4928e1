import { describe, expect, it } from 'vitest';
import type { CompareGroup, CompareRow } from './compare-runs.js';
import { COLLAPSE_ABOVE_TASKS, differingTasks, taskDiffers, viewGroups } from './compare-view.js';

const row = (key: string, left: string, right: string): CompareRow => ({ key, label: key, left, right, differs: left !== right });

function task(id: string, { status = ['succeeded', 'succeeded'], time = ['1.0s', '1.0s'] } = {}): CompareGroup {
  return {
    key: `task-${id}`,
    title: `task ${id}`,
    rows: [
      row(`${id}/status`, status[0] as string, status[1] as string),
      row(`${id}/attempts`, '1 of 3', '1 of 3'),
      row(`${id}/time`, time[0] as string, time[1] as string),
    ],
  };
}

const runGroup: CompareGroup = { key: 'run', title: 'Run', rows: [row('status', 'failed', 'completed'), row('clock', 'real', 'real')] };

describe('taskDiffers', () => {
  it('does not count the time in attempts alone as a difference', () => {
    expect(taskDiffers(task('1:0', { time: ['1.0s', '2.4s'] }))).toBe(false);
    expect(taskDiffers(task('1:0', { status: ['failed', 'succeeded'] }))).toBe(true);
  });
});

describe('viewGroups', () => {
  const many = [
    runGroup,
    ...Array.from({ length: COLLAPSE_ABOVE_TASKS + 1 }, (_, i) =>
      task(`2:${i}`, i === 3 ? { status: ['failed', 'succeeded'], time: ['1s', '3s'] } : { time: ['1s', '2s'] }),
    ),
  ];

  it('differences only: the run, the differing tasks, only their differing rows (time included)', () => {
    const view = viewGroups(many, { differencesOnly: true, opened: new Set() });
    expect(view.map((v) => v.group.key)).toEqual(['run', 'task-2:3']);
    expect(view[0]?.rows.map((r) => r.key)).toEqual(['status']);
    expect(view[1]?.rows.map((r) => r.key)).toEqual(['2:3/status', '2:3/time']);
  });

  it('past the threshold, folds tasks that are the same in both into a summary line, unless opened', () => {
    const view = viewGroups(many, { differencesOnly: false, opened: new Set(['task-2:5']) });
    expect(view).toHaveLength(many.length);
    const folded = view.filter((v) => v.collapsed).map((v) => v.group.key);
    expect(folded).toHaveLength(COLLAPSE_ABOVE_TASKS - 1);
    expect(folded).not.toContain('task-2:3');
    expect(folded).not.toContain('task-2:5');
    expect(view.find((v) => v.group.key === 'task-2:0')?.summary).toBe('succeeded · attempts 1 of 3');
    expect(view.find((v) => v.group.key === 'task-2:0')?.rows).toEqual([]);
  });

  it('below the threshold, shows every task whole', () => {
    const few = [runGroup, task('1:0'), task('1:1', { status: ['failed', 'failed'] })];
    const view = viewGroups(few, { differencesOnly: false, opened: new Set() });
    expect(view.every((v) => !v.collapsed && v.rows.length === v.group.rows.length)).toBe(true);
  });

  it('counts the differing tasks for the toggle', () => {
    expect(differingTasks(many)).toEqual({ differ: 1, total: COLLAPSE_ABOVE_TASKS + 1 });
  });
});
