import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { newInstance, releaseInstance } from '../hosts/hosts.js';
import { replayRun, verifyAggregates } from '../maintenance/replay.js';
import { Dialect, runSync } from '../queries/plan.js';
import { StatementCache } from '../queries/sql.js';
import { claudeSession, failedPrompt, quiet } from '../testing/session-journals.js';
import type Database from 'better-sqlite3';
import { openDatabase } from './database.js';
import { JournalWriter } from './journal-writer.js';
import { migrate } from './migrate.js';

/**
 * An agent session's occurrences stay pending for as long as it runs, so the SQLite writer holds
 * none of them between batches and reads them back at the event that settles them
 * (run-state.ts `RunState.pendingStored`). These pin that it holds none, that every one is still
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
    const builder = claudeSession('long');
    writer.append(builder.events.splice(0));
    for (let attempt = 1; attempt <= 200; attempt += 1) {
      failedPrompt(builder, attempt);
      writer.append(builder.events.splice(0));
      expect(writer.heldPendingErrors, `after prompt ${attempt}`).toBe(0);
    }
    expect(dispositions('long')).toEqual({ pending: 200 });
    quiet(builder, 200);
    writer.append(builder.events.splice(0));
    expect(dispositions('long')).toEqual({ handled: 199, unhandled: 1 });
    expectExact(['long']);
  });

  it('settles a session once when it goes quiet, comes back and goes quiet again in one batch around its eviction', () => {
    // A cache of one run: the second session's start evicts the first in the middle of the batch.
    const writer = new JournalWriter(db, owner, () => 0, 1);
    const first = claudeSession('first');
    for (let attempt = 1; attempt <= 3; attempt += 1) failedPrompt(first, attempt);
    writer.append(first.events.splice(0));

    quiet(first, 3);
    first.push({ type: 'externalRunReopened', idleSince: 1 });
    const second = claudeSession('second');
    const batch: HivewatchEvent[] = [...first.events.splice(0), ...second.events.splice(0)];
    failedPrompt(first, 4);
    quiet(first, null);
    batch.push(...first.events.splice(0));
    writer.append(batch);

    // The first quiet settled the three stored ones; the second only the one of its own prompt.
    expect(dispositions('first')).toEqual({ handled: 3, unhandled: 1 });
    expectExact(['first', 'second']);
  });
});
