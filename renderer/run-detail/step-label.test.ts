import { describe, expect, it } from 'vitest';
import type { StepView } from '../../core/service/api.js';
import { stepLabel } from './step-label.js';

const step = (status: StepView['status']): StepView => ({ step: 1, status, startedAt: 0, endedAt: 10, taskIds: ['1:0', '1:1'] });

describe('stepLabel', () => {
  it('a committed step whose tasks failed is not a plain green "finished"', () => {
    expect(stepLabel(step('finished'), 1)).toMatchObject({ status: 'finished · 1 failed', tone: 'finished-failures' });
    expect(stepLabel(step('finished'), 0)).toMatchObject({ status: 'finished', tone: 'finished', hint: 'committed' });
    expect(stepLabel(step('aborted'), 1)).toMatchObject({ status: 'aborted', tone: 'aborted', hint: 'nothing committed' });
  });
});
