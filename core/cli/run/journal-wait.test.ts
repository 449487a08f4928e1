import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { StoreError } from '../../store/store-error.js';
import type { CliIo } from '../io.js';
import { journalLastEvents } from './journal-wait.js';

/** What the sink's flush rejects with after its retries, for a database that is `cause`. */
const writeFailed = (cause: unknown): HivewatchError =>
  new HivewatchError('SYSTEM_EVENT_WRITE_FAILED', { message: `could not journal 2 event(s): ${(cause as Error).message}`, origin: 'system', cause });
const away = writeFailed(new StoreError('unavailable', 'the database at postgres://db/x is unavailable: connect ECONNREFUSED'));
const full = writeFailed(new Error('database or disk is full'));

function harness(failures: unknown[]): { io: CliIo; err: () => string; flushes: () => number; service: { flushJournal(): Promise<void> } } {
  let err = '';
  let flushes = 0;
  const io: CliIo = { out: () => undefined, err: (t) => (err += t), stdout: process.stdout, env: {} };
  const service = {
    flushJournal: () => {
      flushes += 1;
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve() : Promise.reject(failure as Error);
    },
  };
  return { io, err: () => err, flushes: () => flushes, service };
}

describe('journalLastEvents (the end of hivewatch run)', () => {
  it('waits for a database that is away, says so once, and says when the events are journaled', async () => {
    const h = harness([away, away, away]);
    let clock = 0;
    const waits: number[] = [];
    const written = await journalLastEvents(h.service, h.io, 'run-1', {
      waitMs: 60_000,
      now: () => clock,
      sleep: (ms) => (waits.push(ms), (clock += ms), Promise.resolve()),
    });
    expect(written).toBe(true);
    expect(h.flushes()).toBe(4);
    expect(waits).toEqual([1_000, 1_000, 1_000]);
    expect(
      h
        .err()
        .split('\n')
        .filter((l) => l.includes('waiting up to 60 s')),
    ).toHaveLength(1);
    expect(h.err()).toMatch(/the database is back: the last events of run run-1 are journaled\n$/);
  });

  it('gives up after its bound with the resume hint', async () => {
    const h = harness(Array.from({ length: 100 }, () => away));
    let clock = 0;
    const written = await journalLastEvents(h.service, h.io, 'run-2', { waitMs: 2_500, now: () => clock, sleep: (ms) => ((clock += ms), Promise.resolve()) });
    expect(written).toBe(false);
    expect(h.flushes()).toBe(4);
    expect(h.err()).toMatch(/any hivewatch command marks run run-2 interrupted and `hivewatch resume run-2` continues it\n$/);
  });

  it('does not wait for a full disk: reports it at once, as before', async () => {
    const h = harness([full]);
    const written = await journalLastEvents(h.service, h.io, 'run-3', { waitMs: 60_000, sleep: () => Promise.reject(new Error('no wait expected')) });
    expect(written).toBe(false);
    expect(h.flushes()).toBe(1);
    expect(h.err()).toMatch(/^hivewatch: could not journal 2 event\(s\): database or disk is full\n/);
    expect(h.err()).not.toMatch(/waiting/);
  });
});
