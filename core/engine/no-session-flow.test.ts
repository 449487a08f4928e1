import { describe, expect, it } from 'vitest';
import { planOf, runPlan, typesOf } from './testing.js';

/** A flow with no sessions journals a well-formed run. */
describe('a flow that never reaches a session', () => {
  it('commits its writes in a step of its own: no stepFinished without its stepStarted', async () => {
    const { result, events } = await runPlan(planOf('let x = "a"\nlet y = "{x}b"\n'));
    expect(result).toMatchObject({ status: 'completed', steps: 1, channels: { x: 'a', y: 'ab' } });
    expect(typesOf(events)).toEqual(['runStarted', 'stepStarted', 'writeApplied', 'writeApplied', 'checkpointSaved', 'stepFinished', 'runCompleted']);
    expect(events[1]).toMatchObject({ type: 'stepStarted', step: 1, frontier: [] });
    expect(events.filter((e) => 'step' in e).map((e) => (e as { step: unknown }).step)).toEqual([1, 1, 1, 1, 1]);
  });

  it('with nothing to write, is just started and completed', async () => {
    const { result, events } = await runPlan(planOf('# nothing here\n'));
    expect(result).toMatchObject({ status: 'completed', steps: 0 });
    expect(typesOf(events)).toEqual(['runStarted', 'runCompleted']);
  });

  it('a commit it cannot make fails the run with its step open (aborted), never finished', async () => {
    const { result, events } = await runPlan(planOf('const x = "a"\nx = "b"\n', { allowInvalid: true }));
    expect(result.status).toBe('failed');
    expect(typesOf(events)).not.toContain('stepFinished');
  });
});
