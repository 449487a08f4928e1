import { describe, expect, it } from 'vitest';
import { flowDigest } from '../../flow/plan/digest.js';
import { createRuntimeRegistry } from '../../runtimes/registry.js';
import { resumePointFromEvents } from '../../base/resume-point.js';
import { resumeProblem } from './resume.js';
import { FlowRun } from '../run/run.js';
import { MemorySink } from '../run/sinks.js';
import { ofType, planOf, runPlan } from '../testing.js';

const FLOW = 'session "build"\nsession "test"\n';

describe('resume of a changed flow', () => {
  it('journals the digest and the text of the flow at runStarted', async () => {
    const { events } = await runPlan(planOf(FLOW));
    const started = ofType(events, 'runStarted')[0];
    expect(started?.flowDigest).toBe(flowDigest(FLOW));
    expect(started?.flowText).toBe(FLOW);
    expect(flowDigest(FLOW)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('allows the same text and refuses any change, even one space, naming retry', async () => {
    const { events } = await runPlan(planOf(FLOW));
    const point = resumePointFromEvents('run_a', events);
    expect(resumeProblem(point, FLOW)).toBeNull();
    const changed = `${FLOW} `;
    expect(resumeProblem(point, changed)).toBe(
      `the flow changed since run run_a ran it (${flowDigest(FLOW).slice(0, 19)} then, ${flowDigest(changed).slice(0, 19)} now); ` +
        "resuming would answer the changed program with the old run's recorded outcomes, so it cannot be resumed: " +
        'retry it instead (hivewatch retry run_a), which runs the file as it is now',
    );
  });

  it('the engine itself refuses to start a resume of changed text, whoever calls it', async () => {
    const { events } = await runPlan(planOf(FLOW));
    const point = resumePointFromEvents('run_a', events);
    expect(
      () => new FlowRun({ plan: planOf('session "deploy to production"\n'), registry: createRuntimeRegistry(), sink: new MemorySink(), resume: point }),
    ).toThrow(/^the flow changed since run run_a ran it/);
  });

  it('a journal from before the digest resumes as before (nothing to compare; docs/decisions/0005-resume.md)', async () => {
    const { events } = await runPlan(planOf(FLOW));
    const legacy = events.map((e) => (e.type === 'runStarted' ? { ...e, flowDigest: undefined, flowText: undefined } : e));
    const point = resumePointFromEvents('run_old', legacy);
    expect(point.flowDigest).toBeNull();
    expect(resumeProblem(point, 'session "anything"\n')).toBeNull();
  });
});
