import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../runtimes/process/process-identity.js';
import type { HeartbeatScheduler } from '../hosts/host-lease.js';
import { thisMachine } from '../hosts/hosts.js';
import { openSqliteStore, type SqliteStore } from '../index.js';

let dir: string;
const opened: SqliteStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-lease-'));
});
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A timer the test fires by hand: what a heartbeat does never depends on the wall clock. */
function manualScheduler(): { scheduler: HeartbeatScheduler; ticks: { tick: () => void; ms: number; stopped: boolean }[] } {
  const ticks: { tick: () => void; ms: number; stopped: boolean }[] = [];
  return {
    ticks,
    scheduler: (tick, ms) => {
      const entry = { tick, ms, stopped: false };
      ticks.push(entry);
      return () => (entry.stopped = true);
    },
  };
}

interface HostRow {
  instance: string;
  pid: number;
  heartbeat_at: number;
  lease_ms: number;
  machine: string | null;
  start_time: string | null;
}

describe('a SQLite host lease (migration 11)', () => {
  it('registers the host with its machine and start time when the store opens, renews it on its timer, and deletes it on close', () => {
    let clock = 1_000;
    const { scheduler, ticks } = manualScheduler();
    const store = openSqliteStore({ path: join(dir, 'h.db'), now: () => clock, heartbeat: { leaseMs: 6_000, scheduler } });
    const rows = (): HostRow[] => store.database.prepare('SELECT instance, pid, heartbeat_at, lease_ms, machine, start_time FROM hosts').all() as HostRow[];
    expect(rows()).toEqual([
      {
        instance: expect.any(String),
        pid: process.pid,
        heartbeat_at: 1_000,
        lease_ms: 6_000,
        machine: thisMachine(),
        start_time: processStartTime(process.pid),
      },
    ]);
    expect(ticks.map((t) => t.ms)).toEqual([2_000]);
    clock = 3_000;
    ticks[0]!.tick();
    expect(rows()[0]!.heartbeat_at).toBe(3_000);
    // A clock stepping backwards never moves the lease back.
    clock = 2_500;
    ticks[0]!.tick();
    expect(rows()[0]!.heartbeat_at).toBe(3_000);
    // Deleted meanwhile (as long expired), the next heartbeat writes it again.
    store.database.prepare('DELETE FROM hosts').run();
    clock = 5_000;
    ticks[0]!.tick();
    expect(rows()).toMatchObject([{ heartbeat_at: 5_000 }]);

    const reader = openSqliteStore({ path: join(dir, 'h.db'), recover: false, heartbeat: { scheduler: manualScheduler().scheduler } });
    opened.push(reader);
    expect(reader.database.prepare('SELECT COUNT(*) AS n FROM hosts').get()).toEqual({ n: 2 });
    store.close();
    expect(ticks[0]!.stopped).toBe(true);
    expect(reader.database.prepare('SELECT COUNT(*) AS n FROM hosts').get()).toEqual({ n: 1 });
  });

  it('keeps a heartbeat that cannot write in lastError instead of throwing, and clears it on the next success', () => {
    const { scheduler, ticks } = manualScheduler();
    const store = openSqliteStore({ path: join(dir, 'h.db'), heartbeat: { scheduler } });
    opened.push(store);
    store.database.exec('ALTER TABLE hosts RENAME TO hosts_away');
    ticks[0]!.tick();
    expect(store.lease?.lastError?.message).toBe('no such table: hosts');
    store.database.exec('ALTER TABLE hosts_away RENAME TO hosts');
    ticks[0]!.tick();
    expect(store.lease?.lastError).toBeNull();
  });

  it('a read-only store holds no lease', () => {
    openSqliteStore({ path: join(dir, 'h.db'), heartbeat: { scheduler: manualScheduler().scheduler } }).close();
    const reader = openSqliteStore({ path: join(dir, 'h.db'), readonly: true });
    opened.push(reader);
    expect(reader.lease).toBeNull();
    expect(reader.database.prepare('SELECT COUNT(*) AS n FROM hosts').get()).toEqual({ n: 0 });
  });
});
