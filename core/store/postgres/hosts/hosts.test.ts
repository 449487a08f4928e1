import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_MS, HostLease, isLeaseAlive } from './hosts.js';
import { postgresBinaries, postgresMissing, TestDatabases, testOwner } from '../../testing/test-databases.js';
import { skipTitle } from '../../../testing/skip.js';

describe('isLeaseAlive', () => {
  it('holds from the last heartbeat for lease_ms (exclusive), and not at all without a row', () => {
    const row = { heartbeat_at: 1_000, lease_ms: 15_000 };
    expect(isLeaseAlive(row, 1_000)).toBe(true);
    expect(isLeaseAlive(row, 15_999)).toBe(true);
    expect(isLeaseAlive(row, 16_000)).toBe(false);
    expect(isLeaseAlive(null, 1_000)).toBe(false);
  });

  it('defaults to a 12 s lease: with a watch every second a host elsewhere is seen dead within 15 s', () => {
    expect(DEFAULT_LEASE_MS).toBe(12_000);
  });
});

const bases = new TestDatabases();

describe.skipIf(!postgresBinaries)(skipTitle('HostLease', postgresMissing), () => {
  beforeAll(async () => bases.start());
  afterEach(async () => bases.endPools());
  afterAll(async () => bases.stop());

  it('registers the host, renews its heartbeat from the injected clock, and deletes the row on stop', async () => {
    const pool = bases.pool(await bases.fresh('lease'));
    let clock = 50_000;
    const owner = testOwner('lease', 'machine-1');
    const lease = new HostLease(pool, owner, { leaseMs: 9_000, now: () => clock });
    const row = async (): Promise<unknown[]> => (await pool.query('SELECT * FROM hosts')).rows;
    await lease.start();
    try {
      expect(await row()).toEqual([
        {
          instance: owner.instance,
          pid: owner.pid,
          hostname: 'machine-1',
          started_at: 50_000,
          heartbeat_at: 50_000,
          lease_ms: 9_000,
          machine: null,
          start_time: null,
        },
      ]);
      clock = 53_000;
      await lease.beat();
      expect(await row()).toMatchObject([{ started_at: 50_000, heartbeat_at: 53_000 }]);
      // A heartbeat never moves the lease back (a clock stepping backwards).
      clock = 52_000;
      await lease.beat();
      expect(await row()).toMatchObject([{ heartbeat_at: 53_000 }]);
      // Deleted meanwhile (as long expired), the next heartbeat writes it again.
      await pool.query('DELETE FROM hosts');
      clock = 56_000;
      await lease.beat();
      expect(await row()).toMatchObject([{ instance: owner.instance, heartbeat_at: 56_000 }]);
    } finally {
      await lease.stop();
    }
    expect(await row()).toEqual([]);
    // Stopped: a late heartbeat does not bring the host back.
    await lease.beat();
    expect(await row()).toEqual([]);
  });

  it('keeps a failed heartbeat in lastError instead of throwing, and clears it on the next success', async () => {
    const url = await bases.fresh('lease_fail');
    const pool = bases.pool(url);
    const lease = new HostLease(pool, testOwner('fail'), { now: () => 1 });
    await lease.start();
    await pool.query('ALTER TABLE hosts RENAME TO hosts_away');
    await lease.beat();
    expect(lease.lastError?.message).toBe('relation "hosts" does not exist');
    await pool.query('ALTER TABLE hosts_away RENAME TO hosts');
    await lease.beat();
    expect(lease.lastError).toBeNull();
    await lease.stop();
  });

  it('records what tells its process apart, and beats on the injected timer every lease / 3', async () => {
    const pool = bases.pool(await bases.fresh('lease_timer'));
    let clock = 10_000;
    const ticks: { tick: () => void; ms: number; stopped: boolean }[] = [];
    const scheduler = (tick: () => void, ms: number): (() => void) => {
      const entry = { tick, ms, stopped: false };
      ticks.push(entry);
      return () => (entry.stopped = true);
    };
    const owner = { ...testOwner('timer'), machine: 'boot-1/pid:[1]', startTime: '4242' };
    const readings: number[] = [];
    const now = (): number => {
      readings.push(clock);
      return clock;
    };
    const lease = new HostLease(pool, owner, { leaseMs: 9_000, now, scheduler });
    await lease.start();
    expect(ticks.map((t) => t.ms)).toEqual([3_000]);
    expect((await pool.query('SELECT machine, start_time, heartbeat_at FROM hosts')).rows).toEqual([
      { machine: 'boot-1/pid:[1]', start_time: '4242', heartbeat_at: 10_000 },
    ]);
    clock = 13_000;
    ticks[0]!.tick();
    expect(readings).toEqual([10_000, 13_000]);
    await lease.stop();
    // stop() waits for the heartbeat the tick started, then deletes the row; the timer is off.
    expect(ticks[0]!.stopped).toBe(true);
    expect((await pool.query('SELECT * FROM hosts')).rows).toEqual([]);
  });

  it('refuses a lease that is not a positive duration', () => {
    const pool = bases.pool('postgres://nobody@127.0.0.1:1/none');
    expect(() => new HostLease(pool, testOwner('bad'), { leaseMs: 0 })).toThrow('leaseMs must be a positive number of milliseconds');
  });
});
