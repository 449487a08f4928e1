import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openSqliteStore, type SqliteStore } from '../index.js';
import { prng, randomJournals } from '../testing/journal-builder.js';

/** One SELECT is one snapshot: every invariant between the journal and its aggregates, at once. */
const CONSISTENCY_SQL = `SELECT
  (SELECT COUNT(*) FROM events) AS events,
  (SELECT COALESCE(SUM(last_seq), 0) FROM runs) AS seqs,
  (SELECT COUNT(*) FROM errors) AS errors,
  (SELECT COALESCE(SUM(count), 0) FROM error_rollups) AS minute,
  (SELECT COALESCE(SUM(count), 0) FROM error_rollups_hour) AS hour,
  (SELECT COALESCE(SUM(count), 0) FROM error_rollups_day) AS day,
  (SELECT COALESCE(SUM(count), 0) FROM error_groups) AS groups,
  (SELECT COALESCE(SUM(error_count), 0) FROM runs) AS runErrors`;

type Snapshot = Record<'events' | 'seqs' | 'errors' | 'minute' | 'hour' | 'day' | 'groups' | 'runErrors', number>;

function consistent(s: Snapshot): boolean {
  return s.events === s.seqs && [s.minute, s.hour, s.day, s.groups, s.runErrors].every((n) => n === s.errors);
}

let dir: string;
let path: string;
const opened: SqliteStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-wal-'));
  path = join(dir, 'hivewatch.db');
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function batches(seed: number): HivewatchEvent[][] {
  const random = prng(seed);
  const queues = randomJournals(seed, 30).map((j) => [...j]);
  const out: HivewatchEvent[][] = [];
  while (queues.some((q) => q.length > 0)) {
    const batch: HivewatchEvent[] = [];
    for (const q of queues.filter((x) => x.length > 0).slice(0, 4)) batch.push(...q.splice(0, 1 + Math.floor(random() * 20)));
    out.push(batch);
  }
  return out;
}

describe('WAL readers', () => {
  it('a reader transaction keeps its snapshot while the writer commits, and sees each batch whole', () => {
    const writer = openSqliteStore({ path });
    opened.push(writer);
    expect(writer.database.pragma('journal_mode', { simple: true })).toBe('wal');
    const reader = openSqliteStore({ path, readonly: true });
    opened.push(reader);
    const snapshot = reader.database.prepare(CONSISTENCY_SQL);
    const all = batches(4);
    for (const [i, batch] of all.entries()) {
      const held = reader.database.transaction(() => {
        const first = snapshot.get() as Snapshot;
        writer.appendEvents(batch); // commits while the reader's transaction is open
        const second = snapshot.get() as Snapshot;
        return { first, second };
      })();
      expect(held.second).toEqual(held.first);
      expect(consistent(held.first), `batch ${i}`).toBe(true);
      const after = snapshot.get() as Snapshot;
      expect(consistent(after), `after batch ${i}`).toBe(true);
      expect(after.events).toBe(held.first.events + batch.length);
    }
  });

  it('dataVersion tells a reader that another connection committed', () => {
    const writer = openSqliteStore({ path });
    const reader = openSqliteStore({ path, readonly: true });
    opened.push(writer, reader);
    const v0 = reader.dataVersion();
    expect(reader.dataVersion()).toBe(v0);
    writer.appendEvents(batches(1)[0]!);
    expect(reader.dataVersion()).not.toBe(v0);
  });

  it('a reader in another thread never sees a half-written batch', async () => {
    const writer = openSqliteStore({ path });
    opened.push(writer);
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.driver);
       const db = new Database(workerData.path, { readonly: true });
       db.pragma('busy_timeout = 5000');
       const q = db.prepare(workerData.sql);
       let stop = false, checks = 0, bad = [];
       parentPort.on('message', () => { stop = true; });
       const ok = (s) => s.events === s.seqs && [s.minute, s.hour, s.day, s.groups, s.runErrors].every((n) => n === s.errors);
       const loop = () => {
         for (let i = 0; i < 50; i++) { const s = q.get(); checks++; if (!ok(s) && bad.length < 5) bad.push(s); }
         if (checks === 50) parentPort.postMessage({ ready: true });
         if (stop) { db.close(); parentPort.postMessage({ checks, bad }); } else setImmediate(loop);
       };
       loop();`,
      { eval: true, workerData: { driver, path, sql: CONSISTENCY_SQL } },
    );
    const messages: { ready?: boolean; checks?: number; bad?: unknown[] }[] = [];
    const done = new Promise<{ checks: number; bad: unknown[] }>((resolve, reject) => {
      worker.on('message', (m: { ready?: boolean; checks?: number; bad?: unknown[] }) => {
        messages.push(m);
        if (m.checks !== undefined) resolve(m as { checks: number; bad: unknown[] });
      });
      worker.on('error', reject);
    });
    await new Promise<void>((resolve) => {
      const wait = (): void => (messages.some((m) => m.ready) ? resolve() : void setImmediate(wait));
      wait();
    });
    for (const batch of batches(8)) writer.appendEvents(batch);
    worker.postMessage('stop');
    const result = await done;
    await worker.terminate();
    expect(result.bad).toEqual([]);
    expect(result.checks).toBeGreaterThan(50);
    expect(consistent(writer.database.prepare(CONSISTENCY_SQL).get() as Snapshot)).toBe(true);
  });
});
