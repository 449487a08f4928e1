import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../../base/events.js';
import { diedWithCancelledSibling, JournalBuilder } from '../../testing/journal-builder.js';
import type { EndLeftovers } from '../../hosts/recovery.js';
import { HostLease } from './hosts.js';
import { leftoverReaper } from '../../../runtimes/process/leftover-groups.js';
import { recoverInterruptedPg } from './recovery.js';
import { inTransaction, postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { PostgresJournalWriter } from '../writer/writer.js';
import { skipTitle } from '../../../testing/skip.js';

const bases = new TestDatabases();
const LEASE = 15_000;

/** A run whose host died with attempt 1 of its task's process group still journaled as running. */
function diedWithAgent(runId: string, hostname: string): JournalBuilder {
  const b = new JournalBuilder(runId)
    .start()
    .runStep([{ attempts: ['ok'] }])
    .dieDuringStep([{ attempts: ['ok'] }]);
  b.push({ type: 'attemptProcess', step: b.step, ordinal: 0, taskId: `${b.step}:0`, attempt: 1, pid: 424_242, startTime: '777', hostname });
  return b;
}

interface World {
  url: string;
  clock: { now: number };
  dead: HostLease;
  live: HostLease;
  journals: Record<string, HivewatchEvent[]>;
}

/** Host A (machine-a) wrote two open runs and a finished one, then stopped heartbeating; host B holds its lease and runs one. */
async function world(name: string): Promise<World> {
  const url = await bases.fresh(name);
  const clock = { now: 1_000 };
  const now = (): number => clock.now;
  const poolA = bases.pool(url);
  const poolB = bases.pool(url);
  const ownerA = testOwner('a', 'machine-a');
  const ownerB = testOwner('b', 'machine-b');
  const dead = new HostLease(poolA, ownerA, { leaseMs: LEASE, now });
  const live = new HostLease(poolB, ownerB, { leaseMs: LEASE, now });
  await dead.start();
  await live.start();
  const journals = {
    orphan: diedWithAgent('orphan', 'machine-a').events,
    waiting: new JournalBuilder('waiting').start().events,
    finished: new JournalBuilder('finished')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete().events,
    external: new JournalBuilder('external').start().events,
    alive: diedWithAgent('alive', 'machine-b').events,
  };
  const writerA = new PostgresJournalWriter(ownerA, now);
  const writerB = new PostgresJournalWriter(ownerB, now);
  await inTransaction(poolA, (c) => writerA.append(c, [...journals.orphan, ...journals.waiting, ...journals.finished, ...journals.external]));
  await poolA.query("INSERT INTO external_runs (session_key, run_id, origin, session_id, last_event_at) VALUES ('s', 'external', 'otel', 'session', 1)");
  await inTransaction(poolB, (c) => writerB.append(c, journals.alive));
  // A stops heartbeating (it died); B keeps its lease.
  clock.now = 1_000 + LEASE + 1;
  await live.beat();
  return { url, clock, dead, live, journals };
}

async function statuses(pool: pg.Pool): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ id: string; status: string }>('SELECT id, status FROM runs ORDER BY id');
  return Object.fromEntries(rows.map((r) => [r.id, r.status]));
}

describe.skipIf(!postgresBinaries)(skipTitle('recoverInterruptedPg', postgresMissing), () => {
  beforeAll(async () => bases.start());
  afterEach(async () => bases.endPools());
  afterAll(async () => bases.stop());

  it('interrupts the runs of a host whose lease expired, once, with two hosts recovering at the same time', async () => {
    const w = await world('expired');
    const now = (): number => w.clock.now;
    const recoverers = ['c', 'd'].map((name) => ({ pool: bases.pool(w.url), writer: new PostgresJournalWriter(testOwner(name, `machine-${name}`), now) }));
    const results = await Promise.all(
      recoverers.map((r) => recoverInterruptedPg(r.pool, r.writer, now, { endLeftovers: leftoverReaper({ hostname: 'machine-c', proc: false }) })),
    );
    const recovered = results.flatMap((r) => r.runs).sort((x, y) => x.runId.localeCompare(y.runId));
    expect(recovered).toEqual([
      {
        runId: 'orphan',
        pid: testOwner('a').pid,
        processes: [
          {
            taskId: '2:0',
            attempt: 1,
            pgid: 424_242,
            outcome: 'otherHost',
            message: 'process group 424242 of task 2:0 attempt 1 ran on machine-a, not on this machine (machine-c): not reachable from here, left alone',
          },
        ],
      },
      { runId: 'waiting', pid: testOwner('a').pid, processes: [] },
    ]);
    const pool = recoverers[0]!.pool;
    expect(await statuses(pool)).toEqual({ alive: 'running', external: 'running', finished: 'completed', orphan: 'interrupted', waiting: 'interrupted' });

    // The journal got errorOccurred + runInterrupted once per run, in gapless seq and commit order.
    const { rows } = await pool.query<{ run_id: string; seq: number; type: string; payload: string }>(
      "SELECT run_id, seq, type, payload FROM events WHERE run_id IN ('orphan', 'waiting') AND type IN ('errorOccurred', 'runInterrupted') ORDER BY run_id, seq",
    );
    const orphanEnd = w.journals.orphan!.length;
    expect(rows.map((r) => [r.run_id, r.seq, r.type])).toEqual([
      ['orphan', orphanEnd + 1, 'errorOccurred'],
      ['orphan', orphanEnd + 2, 'runInterrupted'],
      ['waiting', 2, 'errorOccurred'],
      ['waiting', 3, 'runInterrupted'],
    ]);
    const interruption = JSON.parse(rows.find((r) => r.run_id === 'orphan' && r.type === 'runInterrupted')!.payload) as {
      error: { code: string; message: string };
    };
    expect(interruption.error).toMatchObject({
      code: 'SYSTEM_RUN_INTERRUPTED',
      message: `run orphan was interrupted: its host (pid ${testOwner('a').pid} on machine-a) let its lease expire`,
    });
    const all = results.flatMap((r) => r.commitSeqs);
    expect(all.length).toBe(4);
    const head = await pool.query<{ commit_seq: number; events: number }>('SELECT commit_seq, (SELECT COUNT(*) FROM events) AS events FROM journal_head');
    expect(head.rows[0]!.commit_seq).toBe(head.rows[0]!.events);
    expect((await pool.query('SELECT run_id FROM run_hosts ORDER BY run_id')).rows).toEqual([{ run_id: 'alive' }, { run_id: 'external' }]);
    const counted = await pool.query("SELECT SUM(count) AS n FROM error_rollups WHERE code = 'SYSTEM_RUN_INTERRUPTED'");
    expect(counted.rows).toEqual([{ n: 2 }]);

    // Nothing is left to recover, and B's run is still its own.
    const again = await recoverInterruptedPg(pool, recoverers[0]!.writer, now);
    expect(again.runs).toEqual([]);
  });

  it("leaves a live host's runs alone until its lease runs out, and a forced recovery takes no agents from it", async () => {
    const w = await world('live');
    const now = (): number => w.clock.now;
    const pool = bases.pool(w.url);
    const writer = new PostgresJournalWriter(testOwner('c', 'machine-b'), now);
    // The same machine as B: a dead host's agents would be looked for here, a live one's never.
    const endLeftovers = leftoverReaper({ hostname: 'machine-b', proc: false });
    expect((await recoverInterruptedPg(pool, writer, now, { runId: 'alive', endLeftovers })).runs).toEqual([]);
    expect((await statuses(pool)).alive).toBe('running');

    const forced = await recoverInterruptedPg(pool, writer, now, { runId: 'alive', force: true, endLeftovers });
    expect(forced.runs).toEqual([{ runId: 'alive', pid: testOwner('b').pid, processes: [] }]);
    expect(forced.events.map((e) => [e.runId, e.seq, e.type])).toEqual([
      ['alive', w.journals.alive!.length + 1, 'errorOccurred'],
      ['alive', w.journals.alive!.length + 2, 'runInterrupted'],
    ]);
    expect(await statuses(pool)).toMatchObject({ alive: 'interrupted', orphan: 'running' });
  });

  it('ends (here: cannot verify) the agents of a dead host on its own machine, and interrupts once its lease has run out', async () => {
    const w = await world('own_machine');
    const now = (): number => w.clock.now;
    const pool = bases.pool(w.url);
    const writer = new PostgresJournalWriter(testOwner('c', 'machine-a'), now);
    // Still inside A's lease: nothing happens.
    w.clock.now = 1_000 + LEASE - 1;
    expect((await recoverInterruptedPg(pool, writer, now, { runId: 'orphan' })).runs).toEqual([]);
    w.clock.now = 1_000 + LEASE;
    const result = await recoverInterruptedPg(pool, writer, now, { runId: 'orphan', endLeftovers: leftoverReaper({ hostname: 'machine-a', proc: false }) });
    expect(result.runs[0]!.processes).toEqual([
      {
        taskId: '2:0',
        attempt: 1,
        pgid: 424_242,
        outcome: 'unverified',
        message: 'process group 424242 of task 2:0 attempt 1: /proc is not available here, so it cannot be checked to be ours; left alone',
      },
    ]);
  });

  it('hands process control only the attempts with no journaled end: one cancelled by a sibling is not a leftover', async () => {
    const url = await bases.fresh('cancelled_sibling');
    const clock = { now: 1_000 };
    const now = (): number => clock.now;
    const pool = bases.pool(url);
    const owner = testOwner('a', 'machine-a');
    await new HostLease(pool, owner, { leaseMs: LEASE, now }).start();
    await inTransaction(pool, (c) => new PostgresJournalWriter(owner, now).append(c, diedWithCancelledSibling('sibling', 'machine-a').events));
    clock.now = 1_000 + LEASE + 1;
    const handed: string[] = [];
    const endLeftovers: EndLeftovers = (_run, groups) => {
      handed.push(...groups.map((g) => `${g.taskId}#${g.attempt} pid ${g.pid}`));
      return [];
    };
    const result = await recoverInterruptedPg(pool, new PostgresJournalWriter(testOwner('c', 'machine-c'), now), now, { runId: 'sibling', endLeftovers });
    expect(result.runs.map((r) => r.runId)).toEqual(['sibling']);
    expect(handed).toEqual(['2:0#1 pid 424242']);
  });

  it('interrupts a run with no host at all (its host stopped and deleted its lease)', async () => {
    const w = await world('stopped');
    const now = (): number => w.clock.now;
    w.clock.now = 1_000;
    await w.dead.stop();
    const pool = bases.pool(w.url);
    const result = await recoverInterruptedPg(pool, new PostgresJournalWriter(testOwner('c'), now), now, { runId: 'waiting' });
    expect(result.runs).toEqual([{ runId: 'waiting', pid: testOwner('a').pid, processes: [] }]);
    expect((result.events[0] as { error: { message: string } }).error.message).toBe(
      `run waiting was interrupted: its host (pid ${testOwner('a').pid} on machine-a) is gone`,
    );
  });
});
