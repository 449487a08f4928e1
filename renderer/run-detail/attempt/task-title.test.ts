import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../../core/service/api.js';
import { attemptOfLimit, attemptsUsed, taskTitle } from './task-title.js';

function task(taskId: string, name: string): TaskView {
  const [step, ordinal] = taskId.split(':').map(Number) as [number, number];
  return { taskId, step, ordinal, name, agent: 'assistant', status: 'succeeded', maxAttempts: 1, attempts: [], error: null, output: null };
}

describe('taskTitle', () => {
  it('gives the whole name and which parallel branch of its step a task is', () => {
    const tasks = [task('1:1', 'Summarise the release notes'), task('1:0', 'Fetch every open issue of the repository with its labels'), task('2:0', 'Report')];
    expect(taskTitle(tasks[1]!, tasks)).toBe(
      'Fetch every open issue of the repository with its labels\nagent assistant · task 1:0\nparallel branch 1 of 2 in step 1',
    );
    expect(taskTitle(tasks[0]!, tasks)).toBe('Summarise the release notes\nagent assistant · task 1:1\nparallel branch 2 of 2 in step 1');
  });

  it('says nothing of branches for a task alone in its step', () => {
    const tasks = [task('1:0', 'Plan'), task('2:0', 'Report')];
    expect(taskTitle(tasks[1]!, tasks)).toBe('Report\nagent assistant · task 2:0');
  });
});

describe('attempt labels', () => {
  it('give the limit when the task has one and leave it out when it has none (an external run)', () => {
    expect(attemptOfLimit(2, 3)).toBe('2 of 3');
    expect(attemptOfLimit(4, 0)).toBe('4');
    expect(attemptsUsed(2, 3)).toBe('2/3 attempts');
    expect(attemptsUsed(4, 0)).toBe('4 attempts');
    expect(attemptsUsed(1, 0)).toBe('1 attempt');
  });
});
