import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { generateFlow, outcomeOf } from '../../engine/model/flow-generator.js';
import { runModel } from '../../engine/model/reference-model.js';
import { formatDiagnostic } from '../syntax/ast.js';
import { checkFlow } from '../check/check.js';
import { flowSteps } from './step-count.js';

/**
 * The step count a flow is known to take (step-count.ts) against the reference model, which the
 * engine agrees with step for step (core/engine/model/model-agreement.test.ts): on generated
 * flows (sessions, throws, try / catch / finally, parallels in every on-fail mode, repeat), a
 * run in which every session succeeds takes exactly `expected` steps, and a run with the
 * generator's failures never more than `most`.
 */

function planOf(source: string) {
  const checked = checkFlow(source, 'steps.prose');
  if (!checked.ok || checked.plan === null) throw new Error(`${source}\n${checked.diagnostics.map(formatDiagnostic).join('\n')}`);
  return checked.plan;
}

const FAKE = 'agent a:\n  runtime: "fake"\n\n';
const stepsOf = (body: string) => flowSteps(planOf(`${FAKE}${body}`).program);

describe('the steps a flow takes', () => {
  it('counts sequences, parallels (their longest branch), repeats and catch blocks', () => {
    expect(stepsOf('session: a\n  prompt: "one"\nsession: a\n  prompt: "two"\n')).toEqual({ expected: 2, most: 2 });
    expect(
      stepsOf(
        'let x = "no step"\nparallel:\n  do:\n    session: a\n      prompt: "p1"\n    session: a\n      prompt: "p2"\n  session: a\n    prompt: "q"\nsession: a\n  prompt: "after"\n',
      ),
    ).toEqual({ expected: 3, most: 3 });
    expect(stepsOf('repeat 4:\n  session: a\n    prompt: "again"\n')).toEqual({ expected: 4, most: 4 });
    // A catch with sessions runs only when the try fails: one step more at most.
    expect(
      stepsOf('try:\n  session: a\n    prompt: "deploy"\ncatch:\n  session: a\n    prompt: "roll back"\nfinally:\n  session: a\n    prompt: "unlock"\n'),
    ).toEqual({ expected: 2, most: 3 });
    // A throw the flow always reaches: its catch runs, what follows it in its block does not.
    expect(
      stepsOf('try:\n  session: a\n    prompt: "one"\n  throw "stop"\n  session: a\n    prompt: "never"\ncatch:\n  session: a\n    prompt: "handle"\n'),
    ).toEqual({ expected: 2, most: 3 });
  });

  it('has no count for a fail-fast parallel whose branch always throws (timing decides where its siblings stop)', () => {
    expect(stepsOf('parallel:\n  session: a\n    prompt: "long"\n  throw "now"\n')).toBeNull();
    expect(stepsOf('parallel (on-fail: "continue"):\n  session: a\n    prompt: "long"\n  throw "now"\n')).toEqual({ expected: 1, most: 1 });
  });

  it('is what the reference model takes when every session succeeds, and bounds it whatever fails (generated flows)', async () => {
    let counted = 0;
    await assertProperty(
      fc.property(fc.gen(), (g) => {
        const flow = generateFlow(g);
        const plan = planOf(flow.source);
        const steps = flowSteps(plan.program);
        if (steps === null) return;
        counted += 1;
        const allSucceed = runModel(plan, { outcome: () => ({ kind: 'ok', output: '' }) });
        expect(allSucceed.steps.length, flow.source).toBe(steps.expected);
        const scripted = runModel(plan, { outcome: (_ordinal, attempt, prompt) => outcomeOf(flow, prompt, attempt) });
        expect(scripted.steps.length, flow.source).toBeLessThanOrEqual(steps.most);
        expect(steps.expected).toBeLessThanOrEqual(steps.most);
      }),
      { seed: 33_3, numRuns: 400 },
    );
    // Most generated flows are countable: the property is not vacuous.
    expect(counted).toBeGreaterThan(300);
  });
});
