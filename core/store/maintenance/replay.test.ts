import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { newInstance, releaseInstance } from '../hosts/hosts.js';
import { migrate, openDatabase, openSqliteStore, type SqliteStore } from '../index.js';
import { JournalWriter } from '../sqlite/journal-writer.js';
import { StatementCache } from '../queries/sql.js';
import { Dialect, runSync } from '../queries/plan.js';
import { replayRun, verifyAggregates } from './replay.js';
import { failFast, judgedCancelled, rethrow, retryLimit, thrownInCatch } from '../testing/failure-journals.js';
import { JournalBuilder, prng, randomJournals } from '../testing/journal-builder.js';
import { randomSessions } from '../testing/session-journals.js';

let dir: string;
let store: SqliteStore | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-replay-'));
});
afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const retrying = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'timed out after 30000ms' } as const;

function journals(): Record<'completed' | 'failed' | 'cancelled' | 'cancelledBetween' | 'open', HivewatchEvent[]> {
  return {
    completed: new JournalBuilder('completed')
      .start()
      .runStep([{ attempts: [retrying, retrying, 'ok'] }, { attempts: ['ok'] }])
      .runStep([{ attempts: [{ code: 'AGENT_NO_CHANGES', origin: 'agent:coder' }], caught: true }])
      .complete().events,
    failed: new JournalBuilder('failed')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .runStep([{ attempts: [retrying, { code: 'RUNTIME_CRASHED', origin: 'runtime:command' }] }, { attempts: ['ok'] }])
      .fail().events,
    cancelled: new JournalBuilder('cancelled')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .cancelDuringStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake' }] }, { attempts: ['ok'] }]).events,
    cancelledBetween: new JournalBuilder('cancelled-between')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .cancelBetweenSteps().events,
    open: new JournalBuilder('open')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .dieDuringStep([{ attempts: ['ok'] }, { attempts: ['ok'] }]).events,
  };
}

/** Failing runs of both journal shapes (testing/failure-journals.ts). */
function failureScenarios(): HivewatchEvent[][] {
  return [
    ...(['legacy', 'chained'] as const).flatMap((shape) =>
      [retryLimit, rethrow, thrownInCatch, failFast].map((make) => make(`${make.name}-${shape}`, shape).events),
    ),
    judgedCancelled('judged-cancelled').events,
  ];
}

/** Appends the journals interleaved, in random batch sizes, as several engines would. */
function appendChunked(target: SqliteStore, all: HivewatchEvent[][], seed: number): void {
  const random = prng(seed);
  const queues = all.map((events) => [...events]);
  while (queues.some((q) => q.length > 0)) {
    const batch: HivewatchEvent[] = [];
    const size = 1 + Math.floor(random() * 12);
    while (batch.length < size && queues.some((q) => q.length > 0)) {
      const live = queues.filter((q) => q.length > 0);
      batch.push(live[Math.floor(random() * live.length)]!.shift()!);
    }
    target.appendEvents(batch);
  }
}

describe('replay parity', () => {
  it('holds for completed, failed, cancelled and interrupted runs, whatever the batching', () => {
    for (const seed of [1, 2, 3]) {
      const path = join(dir, `parity-${seed}.db`);
      store = openSqliteStore({ path, now: () => Date.UTC(2026, 0, 2) });
      appendChunked(store, Object.values(journals()), seed);
      store.close();
      // The host "died": reopening recovers the open run as interrupted (through the journal).
      store = openSqliteStore({ path, now: () => Date.UTC(2026, 0, 2) });
      expect(store.recovered.map((r) => r.runId)).toEqual(['open']);
      for (const runId of ['completed', 'failed', 'cancelled', 'cancelled-between', 'open']) {
        const report = store.replayRun(runId);
        expect(report.diffs, `${runId} seed ${seed}`).toEqual([]);
        expect(report.ok).toBe(true);
      }
      expect(store.getRun('open')!.run.status).toBe('interrupted');
      expect(store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
      store.close();
      store = undefined;
    }
  });

  it('holds when the store is reopened mid-run (cold cache) and when batches evict rows', () => {
    const events = new JournalBuilder('cold')
      .start()
      .runStep([{ attempts: [retrying, retrying, 'ok'], delayMs: 100 }, { attempts: [retrying, 'ok'] }])
      .runStep([{ attempts: [retrying, { code: 'RUNTIME_CRASHED', origin: 'runtime:x' }], caught: true }])
      .complete().events;
    for (let cut = 1; cut < events.length; cut += 3) {
      store = openSqliteStore({ path: join(dir, `cold-${cut}.db`), recover: false });
      store.appendEvents(events.slice(0, cut));
      store.close();
      store = openSqliteStore({ path: join(dir, `cold-${cut}.db`), recover: false });
      for (const event of events.slice(cut)) store.appendEvents([event]);
      expect(store.replayRun('cold').diffs, `cut at ${cut}`).toEqual([]);
      store.close();
      store = undefined;
    }
  });

  it('holds when the writer evicts live runs mid-batch (tiny run cache)', () => {
    const db = openDatabase({ path: join(dir, 'evict.db') });
    migrate(db);
    const owner = newInstance();
    try {
      const writer = new JournalWriter(db, owner, () => 0, 2);
      // With failing runs whose pending occurrences a reloaded run must still settle (dispositions.ts),
      // and agent sessions, whose pending occurrences the writer reads back when they go quiet.
      const all = [...randomJournals(99, 12), ...failureScenarios(), ...randomSessions(99, 8)];
      const random = prng(99);
      const queues = all.map((j) => [...j]);
      while (queues.some((q) => q.length > 0)) {
        const batch: HivewatchEvent[] = [];
        for (let i = 0; i < 25 && queues.some((q) => q.length > 0); i += 1) {
          const live = queues.filter((q) => q.length > 0);
          batch.push(live[Math.floor(random() * live.length)]!.shift()!);
        }
        writer.append(batch);
      }
      const cache = new StatementCache(db);
      for (const events of all) expect(runSync(cache, replayRun(Dialect.sqlite, events[0]!.runId)).diffs).toEqual([]);
      expect(runSync(cache, verifyAggregates(Dialect.sqlite)).diffs).toEqual([]);
    } finally {
      releaseInstance(owner);
      db.close();
    }
  });

  it('holds for randomized journals', () => {
    store = openSqliteStore({ path: join(dir, 'random.db') });
    const all = [...randomJournals(42, 40), ...failureScenarios(), ...randomSessions(42, 12)];
    appendChunked(store, all, 42);
    for (const events of all) expect(store.replayRun(events[0]!.runId).diffs).toEqual([]);
    expect(store.verifyAggregates().diffs).toEqual([]);
  });

  it('reports readable diffs when a projection disagrees with the journal', () => {
    store = openSqliteStore({ path: join(dir, 'tamper.db') });
    store.appendEvents(journals().completed);
    store.database.prepare("UPDATE tasks SET status = 'failed' WHERE run_id = 'completed' AND task_id = '1:1'").run();
    store.database.prepare("UPDATE attempts SET delay_ms = 7 WHERE run_id = 'completed' AND task_id = '1:0' AND attempt = 1").run();
    store.database.prepare("DELETE FROM errors WHERE run_id = 'completed' AND seq = (SELECT MIN(seq) FROM errors WHERE run_id = 'completed')").run();
    store.database.prepare("INSERT INTO checkpoints (run_id, step, ts, channels) VALUES ('completed', 9, 0, '{}')").run();
    const report = store.replayRun('completed');
    expect(report.ok).toBe(false);
    expect(report.diffs).toContain('tasks[1:1].status: stored "failed", replayed "succeeded"');
    expect(report.diffs).toContain('attempts[1:0#1].delayMs: stored 7, replayed 1000');
    expect(report.diffs.some((d) => /^errors\[seq \d+\]: stored row missing/.test(d))).toBe(true);
    expect(report.diffs.some((d) => d.startsWith('checkpoints[9]: stored row the journal does not produce'))).toBe(true);
  });
});
