import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './sqlite/database.js';
import { migrate, openSqliteStore, SCHEMA_VERSION, type SqliteStore } from './index.js';
import { JournalBuilder } from './testing/journal-builder.js';

let dir: string;
let path: string;
const opened: SqliteStore[] = [];
const open = (): SqliteStore => {
  const store = openSqliteStore({ path, now: () => Date.UTC(2026, 1, 1) });
  opened.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-commit-order-'));
  path = join(dir, 'hivewatch.db');
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const key = (e: { runId: string; seq: number }): string => `${e.runId}#${e.seq}`;

describe('the journal order of commit (migration 5)', () => {
  it('numbers every event of every connection gap-free in the order of commit, and the tail reads them in batches', () => {
    const a = open();
    const b = open();
    const seen: { keys: string[]; seqs: number[] } = { keys: [], seqs: [] };
    b.subscribe((events, _walls, commitSeqs) => {
      seen.keys.push(...events.map(key));
      seen.seqs.push(...commitSeqs);
    });
    const one = new JournalBuilder('one').start();
    const two = new JournalBuilder('two').start();
    const committed: string[] = [];
    a.appendEvents(one.events.slice(0, 1));
    committed.push(key(one.events[0]!));
    b.appendEvents(two.events);
    committed.push(...two.events.map(key));
    a.appendEvents(one.events.slice(1));
    committed.push(...one.events.slice(1).map(key));

    expect(a.journalHead()).toBe(committed.length);
    expect(b.journalHead()).toBe(committed.length);
    const all = a.eventsAfterCommit(0, 100_000);
    expect(all.map((c) => key(c.event))).toEqual(committed);
    expect(all.map((c) => c.commitSeq)).toEqual(committed.map((_, i) => i + 1));
    // b's own listener got b's batch with its positions.
    expect(seen.keys).toEqual(two.events.map(key));
    expect(seen.seqs).toEqual(all.filter((c) => c.event.runId === 'two').map((c) => c.commitSeq));
    // Batches: two at a time, resuming after the last one read.
    const paged: number[] = [];
    let after = 0;
    for (let page = b.eventsAfterCommit(after, 2); page.length > 0; page = b.eventsAfterCommit(after, 2)) {
      expect(page.length).toBeLessThanOrEqual(2);
      paged.push(...page.map((c) => c.commitSeq));
      after = page[page.length - 1]!.commitSeq;
    }
    expect(paged).toEqual(all.map((c) => c.commitSeq));
  });

  it('never reuses a position after prune deleted the newest events', () => {
    let now = Date.UTC(2026, 1, 1);
    const store = openSqliteStore({ path, now: () => now });
    opened.push(store);
    const done = new JournalBuilder('done')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    store.appendEvents(done.events);
    const head = store.journalHead();
    now += 40 * 86_400_000;
    expect(store.prune({ olderThanMs: 30 * 86_400_000 }).runs).toBe(1);
    expect(store.eventsAfterCommit(0)).toEqual([]);
    const next = new JournalBuilder('next').start();
    store.appendEvents(next.events);
    expect(store.eventsAfterCommit(head).map((c) => c.commitSeq)).toEqual(next.events.map((_, i) => head + 1 + i));
  });

  it('numbers the events of a version-4 database when it migrates', () => {
    const db = openDatabase({ path });
    migrate(db, 4);
    // A version-4 writer has no commit_seq: write the rows as it did.
    const insert = db.prepare('INSERT INTO events (run_id, seq, type, ts, payload, wall) VALUES (?, ?, ?, ?, ?, ?)');
    const old = new JournalBuilder('old')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    for (const e of old.events) insert.run(e.runId, e.seq, e.type, e.ts, '{}', null);
    db.close();
    const store = open();
    expect(store.stats().schemaVersion).toBe(SCHEMA_VERSION);
    const all = store.eventsAfterCommit(0, 100_000);
    expect(all.map((c) => c.commitSeq)).toEqual(old.events.map((_, i) => i + 1));
    expect(store.journalHead()).toBe(old.events.length);
    store.appendEvents(new JournalBuilder('new').start().events.slice(0, 1));
    expect(store.eventsAfterCommit(old.events.length).map((c) => [c.commitSeq, c.event.runId])).toEqual([[old.events.length + 1, 'new']]);
  });

  it('rejects a negative position with a clear error', () => {
    expect(() => open().eventsAfterCommit(-1)).toThrow('afterCommit must be a whole number of at least 0');
  });
});

describe('run commands', () => {
  it('are pending for their run until the host records the outcome, once', () => {
    const caller = open();
    const host = open();
    caller.enqueueCommand({ commandId: 'cmd_1', runId: 'r1', kind: 'cancel', reason: 'stop' });
    caller.enqueueCommand({ commandId: 'cmd_2', runId: 'r2', kind: 'skipBackoff', taskId: 't' });
    expect(host.pendingCommands(['r1']).map((c) => [c.commandId, c.kind, c.reason])).toEqual([['cmd_1', 'cancel', 'stop']]);
    expect(host.pendingCommands([])).toEqual([]);
    expect(host.completeCommand('cmd_1', { accepted: true })).toBe(true);
    expect(host.completeCommand('cmd_1', { accepted: false, message: 'late' })).toBe(false);
    expect(caller.getCommand('cmd_1')).toMatchObject({ state: 'done', accepted: true, message: null });
    expect(caller.getCommand('cmd_2')).toMatchObject({ state: 'pending', accepted: null, taskId: 't' });
    expect(host.pendingCommands(['r1', 'r2']).map((c) => c.commandId)).toEqual(['cmd_2']);
    expect(() => caller.enqueueCommand({ commandId: 'cmd_3', runId: 'r1', kind: 'pause' as never })).toThrow('unknown run command "pause"');
  });

  it('know the host of a run and whether it lives', () => {
    const a = open();
    const b = open();
    a.appendEvents(new JournalBuilder('hosted').start().events);
    expect(b.runHost('hosted')).toMatchObject({ pid: process.pid, alive: true });
    expect(b.runHost('nobody')).toBeNull();
    a.close();
    expect(b.runHost('hosted')).toMatchObject({ pid: process.pid, alive: false });
  });
});
