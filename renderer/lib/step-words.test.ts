import { describe, expect, it } from 'vitest';
import { stepWords } from './step-words.js';

describe('the step a run reached, of its flow’s steps', () => {
  it('reads "3 of 5" for a flow of a known length, never the max-steps limit', () => {
    expect(stepWords({ step: 3, maxSteps: 100, flowSteps: { expected: 5, most: 5 } })).toEqual({ text: '3 of 5', title: 'step 3 of the 5 its flow takes' });
  });

  it('gives the range when catch blocks with sessions may run', () => {
    const words = stepWords({ step: 6, maxSteps: 100, flowSteps: { expected: 5, most: 7 } });
    expect(words.text).toBe('6 of 5–7');
    expect(words.title).toBe('step 6: its flow takes 5 steps when nothing fails, up to 7 when its catch blocks run');
  });

  it('shows the step alone when the count is unknown (timing decides it, an external session, an older run)', () => {
    expect(stepWords({ step: 3, maxSteps: 100, flowSteps: null })).toEqual({
      text: '3',
      title: 'step 3; how many steps its flow takes is not known; it stops at 100 (max-steps)',
    });
    expect(stepWords({ step: 1, maxSteps: 0 }).title).toBe('step 1; how many steps its flow takes is not known');
  });
});
