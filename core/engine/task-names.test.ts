import { describe, expect, it } from 'vitest';
import { ofType, planOf, runPlan, ScriptedRuntime, scriptedRegistry } from './testing.js';

/**
 * A task is named by the prompt its attempts run (core/flow/check/specs.ts `sessionTitle`): the
 * template filled in with the run's values, `{feedback}` left out, on one line and shortened; the
 * prompt as written rides along as `template` when the two differ. The journal boundary's
 * secrets are replaced before the name is cut, so no part of one survives at the cut.
 */

const AGENT = 'agent a:\n  runtime: "noop"\n\n';

describe('task names', () => {
  it('fill in the values a task runs with, and keep the written prompt beside them', async () => {
    const plan = planOf(
      `${AGENT}let ctx = session: a\n  prompt: "Collect the open incidents"\nsession: a\n  prompt: "Triage the incidents: {ctx}\\n\\n{feedback}"\n`,
    );
    const runtime = new ScriptedRuntime({ 'Collect the open incidents': () => ({ kind: 'succeeded', output: 'disk full\non db-2' }) });
    const { events } = await runPlan(plan, { registry: scriptedRegistry(runtime) });
    const started = ofType(events, 'taskStarted');
    expect(started.map((e) => [e.name, e.template])).toEqual([
      ['Collect the open incidents', undefined],
      ['Triage the incidents: disk full on db-2', 'Triage the incidents: {ctx}'],
    ]);
    expect(ofType(events, 'stepStarted').map((e) => e.frontier.map((f) => f.name))).toEqual([
      ['Collect the open incidents'],
      ['Triage the incidents: disk full on db-2'],
    ]);
    // The name is what the attempt was asked, on one line.
    expect(runtime.calls[1]?.prompt).toBe('Triage the incidents: disk full\non db-2\n\n');
  });

  it('are shortened like written names, and a secret is replaced before the cut', async () => {
    const secret = `sk-live-${'0123456789abcdef'.repeat(4)}`;
    const plan = planOf(
      `agent a:\n  runtime: "noop"\n  env: ["API_KEY=${secret}"]\n\nlet key = "${secret}"\nsession: a\n  prompt: "Deploy the release with the key {key} and tell the channel"\n`,
    );
    const { events } = await runPlan(plan, { registry: scriptedRegistry(new ScriptedRuntime({})) });
    const names = ofType(events, 'taskStarted').map((e) => e.name);
    expect(names[0]).toBe('Deploy the release with the key [secret API_KEY] and tell t…');
    expect(names[0]).toHaveLength(60);
    for (let i = 0; i + 8 <= secret.length; i += 4) expect(JSON.stringify(events)).not.toContain(secret.slice(i, i + 8));
  });

  it('an empty rendering keeps the written name', async () => {
    const plan = planOf(`${AGENT}let empty = ""\nsession: a\n  prompt: "{empty}"\n`);
    const { events } = await runPlan(plan, { registry: scriptedRegistry(new ScriptedRuntime({})) });
    expect(ofType(events, 'taskStarted').map((e) => [e.name, e.template])).toEqual([['{empty}', undefined]]);
  });
});
