import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { JournalBuilder, randomJournals } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 23 on every engine: it adds what a run's and a task's labels are made of (the steps
 * its flow takes, the prompt as written) and keeps every row; rows journaled before read NULL,
 * which the window shows as the step alone and the name alone. A run journaled after it keeps
 * both facts.
 */

const { engines, start, stop } = testEngines('migration-23');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 0, 1);
const TEMPLATE = 'Triage the incidents: {ctx}';

/** A run whose runStarted counts its flow's steps and whose task names the template it filled in. */
function labelledRun(runId: string): HivewatchEvent[] {
  return new JournalBuilder(runId, { start: T0 })
    .start()
    .runStep([{ name: 'Triage the incidents: disk full', attempts: ['ok'] }])
    .complete()
    .events.map((e) => {
      if (e.type === 'runStarted') return { ...e, flowSteps: { expected: 2, most: 3 } };
      if (e.type === 'taskStarted') return { ...e, template: TEMPLATE };
      return e;
    });
}

/** Every row of runs and tasks as text, without the columns migration 23 adds. */
async function rowsBefore23(location: string): Promise<string[]> {
  const runs = await query(location, 'SELECT * FROM runs ORDER BY id');
  const tasks = await query(location, 'SELECT * FROM tasks ORDER BY run_id, task_id');
  const text = (r: Record<string, unknown>): string =>
    JSON.stringify(
      Object.entries(r)
        .filter(([k]) => !['flow_steps', 'flow_steps_most', 'template'].includes(k))
        .map(([k, v]) => [k, v === null ? null : String(v)])
        .sort(),
    );
  return [...runs.map(text), ...tasks.map(text)];
}

describe.each(engines)('migration 23 on $name', (engine) => {
  it('adds the flow-step counts and the prompt as written, NULL for rows journaled before, keeping every row', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 });
    for (const journal of randomJournals(2_323, 20, { start: T0 })) await store.appendEvents(journal);
    await store.appendEvents(labelledRun('labelled-before'));
    await store.close();
    const before = await query(location, "SELECT flow_steps, flow_steps_most FROM runs WHERE id = 'labelled-before'");
    expect(before.map((r) => [Number(r.flow_steps), Number(r.flow_steps_most)])).toEqual([[2, 3]]);
    const kept = await rowsBefore23(location);

    await undoMigrationsAfter(location, 20);
    const migrated = await openStore({ path: location, now: () => T0 });
    await migrated.appendEvents(labelledRun('labelled-after'));
    await migrated.close();

    expect((await rowsBefore23(location)).filter((row) => !row.includes('labelled-after'))).toEqual(kept);
    const counts = await query(location, 'SELECT id, flow_steps, flow_steps_most FROM runs WHERE flow_steps IS NOT NULL OR flow_steps_most IS NOT NULL');
    expect(counts.map((r) => [r.id, Number(r.flow_steps), Number(r.flow_steps_most)])).toEqual([['labelled-after', 2, 3]]);
    const templates = await query(location, 'SELECT run_id, name, template FROM tasks WHERE template IS NOT NULL');
    expect(templates).toEqual([{ run_id: 'labelled-after', name: 'Triage the incidents: disk full', template: TEMPLATE }]);
  });
});
