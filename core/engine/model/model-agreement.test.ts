import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import { formatDiagnostic } from '../../flow/syntax/ast.js';
import { checkFlow } from '../../flow/check/check.js';
import type { FlowPlan } from '../../flow/plan/plan.js';
import { shortenPrompt } from '../../runtimes/simulated.js';
import { createRuntimeRegistry } from '../../runtimes/registry.js';
import { canonicalJournal } from './canonical.js';
import type { HivewatchEvent } from '../../base/events.js';
import { RacingRuntime, type ScriptedOutcome } from './racing-runtime.js';
import type { RunResult } from '../run/run.js';
import { ofType, runPlan, scriptedRegistry, startRun } from '../testing.js';
import { generateFlow, outcomeOf, type GeneratedFlow } from './flow-generator.js';
import { journalProblems, terminalStatus } from './journal-invariants.js';
import { chainProblems, observedFailures } from './observed.js';
import { runModel, type ModelResult } from './reference-model.js';

/**
 * The engine must agree with the reference model on every generated flow, whatever order its
 * attempts settle in. `npm run fuzz` runs the same properties long (HIVEWATCH_FUZZ_RUNS) from a
 * fresh seed; every property here has a fixed seed of its own, which HIVEWATCH_FUZZ_SEED
 * overrides (core/testing/property.ts), and a failure names the seed that replays it.
 */
const RUNS = Number(process.env.HIVEWATCH_FUZZ_RUNS ?? 250);
const ORDERS_PER_FLOW = 3;
const params = { numRuns: RUNS };

function planOfGenerated(flow: GeneratedFlow): FlowPlan {
  const checked = checkFlow(flow.source, 'generated.prose');
  if (!checked.ok || checked.plan === null) {
    throw new Error(`a generated flow does not check:\n${flow.source}\n${checked.diagnostics.map(formatDiagnostic).join('\n')}`);
  }
  return checked.plan;
}

/** What the engine did, in the model's terms. */
function observed(result: RunResult, events: readonly HivewatchEvent[]): Omit<ModelResult, 'status'> & { status: string } {
  const failures = observedFailures(events);
  const error = result.error;
  let at: string | null = null;
  if (error?.correlation.task) at = `task ${error.correlation.task.split(':')[1]}`;
  else if (error?.code === 'USER_THROWN') at = `${String(error.context.line)}:${String(error.context.column)}`;
  const outcomes: Record<string, string> = {};
  for (const e of events) {
    if (e.type === 'taskSucceeded') outcomes[e.taskId] = 'ok';
    if (e.type === 'taskFailed' && !e.cancelled) outcomes[e.taskId] = e.error.code;
  }
  return {
    status: result.status,
    error: error === null ? null : { code: error.code, at },
    chain: failures.chain,
    occurrences: failures.occurrences,
    failures: failures.failures,
    channels: result.channels,
    steps: ofType(events, 'stepStarted').map((e) => e.frontier.map((f) => f.ordinal)),
    outcomes,
  };
}

describe('the engine against the reference model (generated flows)', () => {
  it('agrees on status, error, chain, occurrences, channels, steps and task outcomes, under several settle orders, with one canonical journal', async () => {
    await assertProperty(
      fc.asyncProperty(fc.gen(), fc.integer({ min: 1, max: 2 ** 30 }), async (g, seed) => {
        const flow = generateFlow(g);
        const plan = planOfGenerated(flow);
        const outcome = (_ordinal: number, attempt: number, prompt: string): ScriptedOutcome => outcomeOf(flow, prompt, attempt);
        const expected = runModel(plan, { outcome });
        let canonical: unknown[] | null = null;
        for (let order = 0; order < ORDERS_PER_FLOW; order++) {
          const runtime = new RacingRuntime({ seed: seed + order, outcome });
          const { result, events } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
          expect(journalProblems(events), flow.source).toEqual([]);
          expect(chainProblems(events), flow.source).toEqual([]);
          expect(terminalStatus(events)).toBe(result.status);
          expect(observed(result, events), `${flow.source}\nsettle seed ${seed + order}`).toEqual(expected);
          // Rule 15: whatever the settle order, one journal in canonical form.
          const form = canonicalJournal(events);
          if (canonical === null) canonical = form;
          else expect(form, `${flow.source}\nsettle seed ${seed + order}`).toEqual(canonical);
        }
      }),
      { ...params, seed: 19_001 },
    );
  });

  it('keeps the journal sound when the operator cancels at any moment', async () => {
    await assertProperty(
      fc.asyncProperty(fc.gen(), fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 1, max: 60 }), async (g, seed, cancelAfter) => {
        const flow = generateFlow(g);
        const plan = planOfGenerated(flow);
        const runtime = new RacingRuntime({ seed, outcome: (_o, attempt, prompt) => outcomeOf(flow, prompt, attempt) });
        const { run, done, sink } = startRun(plan, { registry: scriptedRegistry(runtime) });
        let seen = 0;
        run.onEvent(() => {
          if (++seen === cancelAfter) setImmediate(() => run.cancel({ commandId: 'cmd_fuzz' }));
        });
        const result = await done;
        expect(journalProblems(sink.events), flow.source).toEqual([]);
        expect(chainProblems(sink.events), flow.source).toEqual([]);
        expect(terminalStatus(sink.events)).toBe(result.status);
        const cancelled = ofType(sink.events, 'runCancelled')[0];
        if (cancelled) {
          // Rule 11: a step the cancel caught failed every one of its tasks as cancelled.
          const lastStep = ofType(sink.events, 'stepStarted').at(-1);
          const finished = ofType(sink.events, 'stepFinished').at(-1)?.step === lastStep?.step;
          if (lastStep && !finished) {
            const failed = ofType(sink.events, 'taskFailed').filter((e) => e.step === lastStep.step);
            expect(failed.map((e) => e.ordinal)).toEqual(lastStep.frontier.map((f) => f.ordinal));
          }
        }
      }),
      { ...params, seed: 19_002, numRuns: Math.max(20, Math.floor(RUNS / 2)) },
    );
  });

  it('agrees with real fake-agent subprocesses too (a small sample)', async () => {
    await assertProperty(
      fc.asyncProperty(fc.gen(), async (g) => {
        const flow = generateFlow(g, { withSimulate: true });
        const plan = planOfGenerated(flow);
        // The fake agent echoes `ok: <prompt>`; its errors carry their own messages, which only the
        // channel values could show, so channels are compared on the racing runtime above.
        const outcome = (_o: number, attempt: number, prompt: string): ScriptedOutcome => {
          const scripted = outcomeOf(flow, prompt, attempt);
          return scripted.kind === 'ok' ? { kind: 'ok', output: `ok: ${shortenPrompt(prompt)}` } : scripted;
        };
        const expected = runModel(plan, { outcome });
        const { result, events } = await runPlan(plan, { registry: createRuntimeRegistry(), defaultAgent: 'fake' });
        expect(journalProblems(events), flow.source).toEqual([]);
        expect(chainProblems(events), flow.source).toEqual([]);
        const { channels: _c1, ...seen } = observed(result, events);
        const { channels: _c2, ...predicted } = expected;
        expect(seen, flow.source).toEqual(predicted);
      }),
      { ...params, seed: 19_003, numRuns: Number(process.env.HIVEWATCH_FUZZ_SUBPROCESS_RUNS ?? 4) },
    );
  });
});

describe('failures against runs (rule 17, F4)', () => {
  it('unhandled failures equal the runs that ended failed, whatever the operator did: a chain is one failure', async () => {
    const totals = { runs: 0, failedRuns: 0, failures: 0, unhandled: 0, links: 0 };
    await assertProperty(
      fc.asyncProperty(fc.gen(), fc.integer({ min: 1, max: 2 ** 30 }), fc.option(fc.integer({ min: 1, max: 60 })), async (g, seed, cancelAfter) => {
        const flow = generateFlow(g);
        const runtime = new RacingRuntime({ seed, outcome: (_o, attempt, prompt) => outcomeOf(flow, prompt, attempt) });
        const { run, done, sink } = startRun(planOfGenerated(flow), { registry: scriptedRegistry(runtime) });
        let seen = 0;
        run.onEvent(() => {
          if (++seen === cancelAfter) setImmediate(() => run.cancel({ commandId: 'cmd_fuzz' }));
        });
        const result = await done;
        const { chain, occurrences } = observedFailures(sink.events);
        // As the store settles them: unhandled iff a link of the ending chain (rule 17).
        const unhandled = occurrences.filter((o) => o.endsWith(' unhandled')).length;
        const failures = unhandled > 0 ? 1 : 0;
        expect(failures, flow.source).toBe(result.status === 'failed' ? 1 : 0);
        expect(unhandled, flow.source).toBe(chain?.length ?? 0);
        totals.runs++;
        totals.failedRuns += result.status === 'failed' ? 1 : 0;
        totals.failures += failures;
        totals.unhandled += unhandled;
        totals.links += chain?.length ?? 0;
      }),
      { ...params, seed: 19_004 },
    );
    expect(totals.failures).toBe(totals.failedRuns);
    expect(totals.unhandled).toBe(totals.links);
    // The generator makes failing runs and chains longer than one link, or this would prove little.
    expect(totals.failedRuns).toBeGreaterThan(0);
    expect(totals.links).toBeGreaterThan(totals.failures);
  });
});

/** Edits that may make a flow wrong in a way `check` must see; each applied at a random statement line. */
const MUTATIONS: readonly ((lines: string[], at: number, indent: string) => void)[] = [
  (lines, at, indent) => lines.splice(at, 0, `${indent}ghost = "x"`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}k = "again"`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}session "s0" (retry: 2, backoff: [1s, 10m], max-delay: "5m")`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}session: nobody`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}throw`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}let g1 = "again"`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}parallel:`, `${indent}  g0 = session "s0"`, `${indent}  g0 = session "s1"`),
  (lines, at, indent) => lines.splice(at, 0, `${indent}g2 = "{undefined_name}"`),
];

/** Failures a flow's own text causes: `check` must report them before any run. */
function causedByText(result: RunResult): boolean {
  const error = result.error;
  if (error === null) return false;
  if (['USER_INVALID_FLOW', 'POLICY_COMMIT_REJECTED', 'USER_MISSING_DEPENDENCY'].includes(error.code)) return true;
  return error.code === 'SYSTEM_INVARIANT_VIOLATED' && error.context.rule === 'unknown-channel';
}

describe('check against the engine', () => {
  it('a flow that check accepts never fails at run time because of its own text', async () => {
    await assertProperty(
      fc.asyncProperty(fc.gen(), fc.nat(), fc.nat(MUTATIONS.length - 1), async (g, where, which) => {
        const lines = generateFlow(g).source.trimEnd().split('\n');
        const statements = lines.flatMap((line, index) => (/^\s*(catch|finally|simulate|agent)\b/.test(line) ? [] : [index]));
        const at = statements[where % statements.length] as number;
        const indent = /^\s*/.exec(lines[at] as string)?.[0] ?? '';
        (MUTATIONS[which] as (typeof MUTATIONS)[number])(lines, at, indent);
        const source = `${lines.join('\n')}\n`;
        const checked = checkFlow(source, 'mutated.prose');
        if (!checked.ok || checked.plan === null) return;
        // Every attempt succeeds: only the text can make this run fail.
        const runtime = new RacingRuntime({ seed: where, outcome: (_o, _a, prompt) => ({ kind: 'ok', output: `${prompt}!` }) });
        const { result } = await runPlan(checked.plan, { registry: scriptedRegistry(runtime) });
        expect(causedByText(result), `${source}\n${JSON.stringify(result.error)}`).toBe(false);
      }),
      { ...params, seed: 19_005 },
    );
  });
});
