import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { openStore } from '../../open.js';
import { testEngines } from '../../testing/engines.js';
import { JournalBuilder } from '../../testing/journal-builder.js';
import { query, undoMigrationsAfter } from '../../testing/undo-migrations.js';

/**
 * Migration 27 on every engine: `attempts.telemetry_origin` is added NULL to attempts journaled
 * before (they did not say whether their CLI had an exporter, so none is expected of them), every
 * other column kept; an attempt journaled after it keeps the exporter its `attemptProcess` named.
 */

const { engines, start, stop } = testEngines('migration-27');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 0, 1);
const REF = { step: 1, ordinal: 0, taskId: 'fix' };

/** A run whose one attempt's CLI was spawned with `telemetry`; `ended`: the run completed since. */
function attemptRun(runId: string, telemetry: string, ended: boolean): HivewatchEvent[] {
  const run = new JournalBuilder(runId, { start: T0 }).start();
  run.push({ type: 'stepStarted', step: 1, frontier: [] });
  run.push({ type: 'taskStarted', ...REF, name: 'fix', agent: 'coder', maxAttempts: 1 });
  run.push({ type: 'attemptStarted', ...REF, attempt: 1 });
  run.push({ type: 'attemptProcess', ...REF, attempt: 1, pid: 77, startTime: null, hostname: 'host-a', telemetry });
  if (ended) {
    run.push({ type: 'attemptSucceeded', ...REF, attempt: 1, durationMs: 10 });
    run.push({ type: 'taskSucceeded', ...REF, attempts: 1, output: 'fixed' });
    run.push({ type: 'stepFinished', step: 1 });
    run.complete();
  }
  return run.events;
}

const attemptRows = async (location: string): Promise<Record<string, unknown>[]> =>
  (await query(location, 'SELECT * FROM attempts ORDER BY run_id')).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])),
  );

describe.each(engines)('migration 27 on $name', (engine) => {
  it('adds the exporter column NULL to attempts journaled before, keeping their rows; later attempts keep theirs', async () => {
    const location = await engine.fresh();
    const store = await openStore({ path: location, now: () => T0 });
    await store.appendEvents(attemptRun('before', 'runtime:claude-code', true));
    await store.close();
    await undoMigrationsAfter(location, 25);
    const kept = await attemptRows(location);
    expect(kept).toHaveLength(1);
    expect(kept[0]).not.toHaveProperty('telemetry_origin');

    const reopened = await openStore({ path: location, now: () => T0 });
    try {
      expect(await attemptRows(location)).toEqual(kept.map((row) => ({ ...row, telemetry_origin: null })));
      await reopened.appendEvents(attemptRun('after', 'runtime:codex-cli', false));
      expect((await reopened.getRun('after'))!.attempts[0]!.telemetryOrigin).toBe('runtime:codex-cli');
      expect((await reopened.getRun('before'))!.attempts[0]!.telemetryOrigin).toBeNull();
    } finally {
      await reopened.close();
    }
  });
});
