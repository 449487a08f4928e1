import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { newInstance, releaseInstance } from '../hosts/hosts.js';
import { replayRun, verifyAggregates } from '../maintenance/replay.js';
import { Dialect, runSync } from '../queries/plan.js';
import { StatementCache } from '../queries/sql.js';
import { claudeSessionStarted, envelope, JournalBuilder } from '../testing/journal-builder.js';
import type Database from 'better-sqlite3';
import { openDatabase } from './database.js';
import { JournalWriter } from './journal-writer.js';
import { migrate } from './migrate.js';

/**
 * An agent session's occurrences stay pending for as long as it runs, so the SQLite writer holds
 * none of them between batches and reads them back at the event that settles them
 * (projections.ts `RunState.pendingStored`). These pin that it holds none, that every one is still
 * settled, and that one settled earlier in the same batch is not settled twice.
 */

let dir: string;
let db: Database.Database;
let owner: ReturnType<typeof newInstance>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-pending-'));
  db = openDatabase({ path: join(dir, 'pending.db') });
  migrate(db);
  owner = newInstance();
});
afterEach(() => {
  releaseInstance(owner);
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const LIMITED = { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code', message: 'rate limited' } as const;

/** An external session's first events: it starts, and its one task runs. */
function session(runId: string): JournalBuilder {
  const builder = new JournalBuilder(runId);
  builder.push(claudeSessionStarted(runId));
  builder.push({ type: 'stepStarted', step: 1, frontier: [] });
  builder.push({ type: 'taskStarted', step: 1, ordinal: 0, taskId: 'prompt-1', name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 });
  return builder;
}

/** One failed prompt of the session: its attempt and its occurrence, which stays pending. */
function failedPrompt(builder: JournalBuilder, attempt: number): void {
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1' };
  const error = envelope(LIMITED, { project: null, flow: 'external:claude-code', run: builder.runId, step: 1, task: 'prompt-1', attempt }, 1);
  builder.push({ type: 'attemptStarted', ...ref, attempt });
  builder.push({ type: 'attemptFailed', ...ref, attempt, durationMs: 10, error });
  builder.push({ type: 'errorOccurred', error, caught: false, retrying: false, ...ref });
}

/** The session goes quiet: failed by the prompt of `failedAttempt` (its occurrence ends the run), or not failed (null). */
function idle(builder: JournalBuilder, failedAttempt: number | null): void {
  const correlation = { project: null, flow: 'external:claude-code', run: builder.runId, step: 1, task: 'prompt-1', attempt: failedAttempt };
  const failed = failedAttempt === null ? {} : { error: envelope(LIMITED, correlation, 1) };
  builder.push({ type: 'externalRunIdle', quietMs: 60_000, lastEventAt: 1, ...failed });
}

function dispositions(runId: string): Record<string, number> {
  const rows = db.prepare('SELECT disposition, COUNT(*) AS n FROM errors WHERE run_id = ? GROUP BY disposition').all(runId) as {
    disposition: string;
    n: number;
  }[];
  return Object.fromEntries(rows.map((r) => [r.disposition, r.n]));
}

function expectExact(runIds: readonly string[]): void {
  const cache = new StatementCache(db);
  for (const runId of runIds) expect(runSync(cache, replayRun(Dialect.sqlite, runId)).diffs, runId).toEqual([]);
  expect(runSync(cache, verifyAggregates(Dialect.sqlite)).diffs).toEqual([]);
}

describe("the SQLite writer and a live run's pending occurrences", () => {
  it('holds none of them between batches, and settles every one at the run end', () => {
    const writer = new JournalWriter(db, owner, () => 0);
    const builder = session('long');
    writer.append(builder.events.splice(0));
    for (let attempt = 1; attempt <= 200; attempt += 1) {
      failedPrompt(builder, attempt);
      writer.append(builder.events.splice(0));
      expect(writer.heldPendingErrors, `after prompt ${attempt}`).toBe(0);
    }
    expect(dispositions('long')).toEqual({ pending: 200 });
    idle(builder, 200);
    writer.append(builder.events.splice(0));
    expect(dispositions('long')).toEqual({ handled: 199, unhandled: 1 });
    expectExact(['long']);
  });

  it('settles a session once when it goes quiet, comes back and goes quiet again in one batch around its eviction', () => {
    // A cache of one run: the second session's start evicts the first in the middle of the batch.
    const writer = new JournalWriter(db, owner, () => 0, 1);
    const first = session('first');
    for (let attempt = 1; attempt <= 3; attempt += 1) failedPrompt(first, attempt);
    writer.append(first.events.splice(0));

    idle(first, 3);
    first.push({ type: 'externalRunReopened', idleSince: 1 });
    const second = session('second');
    const batch: HivewatchEvent[] = [...first.events.splice(0), ...second.events.splice(0)];
    failedPrompt(first, 4);
    idle(first, null);
    batch.push(...first.events.splice(0));
    writer.append(batch);

    // The first quiet settled the three stored ones; the second only the one of its own prompt.
    expect(dispositions('first')).toEqual({ handled: 3, unhandled: 1 });
    expectExact(['first', 'second']);
  });
});
