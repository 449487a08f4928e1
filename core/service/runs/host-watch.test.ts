import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import { groupAlive } from '../../runtimes/process/process-group.js';
import { leftoverReaper } from '../../runtimes/process/leftover-groups.js';
import { openHostStore } from '../history/open.js';
import type { HivewatchStore, RecoveredRun } from '../../store/index.js';
import { postgresBinaries, TestDatabases } from '../../store/testing/test-databases.js';
import { waiting } from '../../testing/waiting.js';
import type { LiveEvent } from '../api.js';
import { HostWatch } from './host-watch.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import type { TailScheduler } from '../live/journal-tail.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/**
 * Dead hosts (rule 19): a real `hivewatch run` on the database, killed or paused,
 * and services in this process watching it. The watchers' timers are never fired: each test
 * calls `checkHosts()` when it wants a pass, so nothing depends on the wall clock.
 */

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'hivewatch.js');

/**
 * One task waits ten minutes in backoff while another works (a live agent process, journaled as
 * `attemptProcess`): what a killed host leaves. The command runtime, as the agent CLIs' presets use.
 */
export const BACKOFF_AND_WORK = `agent api:
  command: "sh -c 'echo rate limited: 429 Too Many Requests >&2; exit 1'"
agent job:
  command: "sleep 120"

parallel:
  api = session: api
    prompt: "call the rate-limited API"
    retry: 2
    backoff: "fixed"
    delay: "10m"
  job = session: job
    prompt: "a long job"
`;

/** A short piece of work: a paused host that comes back finishes it. */
const SHORT_WORK = `agent job:
  command: "sleep 1"

session: job
  prompt: "a short job"
`;

const never: TailScheduler = () => () => undefined;

let dir: string;
let location: string;
const cleanups: (() => Promise<void> | void)[] = [];

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-hostwatch-'));
  writeFileSync(join(dir, 'backoff-and-work.prose'), BACKOFF_AND_WORK);
  writeFileSync(join(dir, 'short-work.prose'), SHORT_WORK);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A watching host in this process (the window's service), its timers never firing by themselves. */
async function watcher(now?: () => number): Promise<{ service: HivewatchService; store: HivewatchStore }> {
  const store = await openHostStore({ path: location, ...(now ? { now } : {}), heartbeat: { scheduler: never } });
  const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, tailScheduler: never, watchHosts: { scheduler: never } });
  cleanups.push(
    () => store.close(),
    () => service.close({ timeoutMs: 5_000 }),
  );
  return { service, store };
}

interface CliRun {
  child: ChildProcess;
  printed: HivewatchEvent[];
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  stderr: () => string;
  /** The first printed (so committed) event that matches. */
  waitFor<T extends HivewatchEvent>(what: string, match: (e: HivewatchEvent) => e is T): Promise<T>;
}

function cliRun(flow: string): CliRun {
  const child = spawn(process.execPath, [BIN, 'run', join(dir, flow), '--db', location, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  const printed: HivewatchEvent[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => printed.push(JSON.parse(line) as HivewatchEvent));
  return {
    child,
    printed,
    exited: once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>,
    stderr: () => stderr,
    waitFor: (what, match) => vi.waitFor(() => printed.find(match) ?? waiting(what), { timeout: 20_000 }),
  };
}

const isType =
  <K extends HivewatchEvent['type']>(type: K, extra: (e: EventOf<K>) => boolean = () => true) =>
  (e: HivewatchEvent): e is EventOf<K> =>
    e.type === type && extra(e as EventOf<K>);

/** Runs SQL on the database outside Hivewatch (what another machine's host would look like). */
async function sql(statement: string, params: unknown[]): Promise<void> {
  if (location.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      let placeholder = 0;
      await client.query(
        statement.replace(/\?/g, () => `$${++placeholder}`),
        params,
      );
    } finally {
      await client.end();
    }
    return;
  }
  const db = new Database(location);
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

/** Whether no other connection is inside a write of the database right now. */
async function noWriteInFlight(): Promise<boolean> {
  if (location.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')`,
      );
      return rows[0]?.n === 0;
    } finally {
      await client.end();
    }
  }
  const db = new Database(location, { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE; ROLLBACK');
    return true;
  } catch (error) {
    if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return false;
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Stops the host (SIGSTOP) at a moment it is inside no write. Stopped inside one, it would hold
 * SQLite's write lock (or its PostgreSQL transaction) for as long as it is stopped, and every
 * other writer would wait on it: on a busy machine the stop landed inside a lease renewal now
 * and then, and the test's own UPDATE failed with "database is locked". A host that is merely
 * not heard from is what these tests mean, so a stop that lands in a write is undone and tried
 * again.
 */
async function pauseOutsideWrite(child: ChildProcess): Promise<void> {
  await vi.waitFor(
    async () => {
      child.kill('SIGSTOP');
      if (await noWriteInFlight()) return;
      child.kill('SIGCONT');
      throw new Error('the host was stopped inside a write; continued, to be stopped again');
    },
    { timeout: 20_000, interval: 10 },
  );
}

const engines = [
  { name: 'SQLite', fresh: () => Promise.resolve(join(dir, 'hivewatch.db')) },
  ...(postgresBinaries ? [{ name: 'PostgreSQL', fresh: () => databases.fresh('hostwatch') }] : []),
];

describe.each(engines)('the host watch on $name', (engine) => {
  beforeEach(async () => {
    location = await engine.fresh();
  });

  it('kill -9 of a `hivewatch run` in backoff: one pass of two watchers marks its run interrupted once, ends its agent, and the live stream carries it', async () => {
    const window = await watcher();
    const other = await watcher();
    const live: LiveEvent[] = [];
    const subscription = window.service.subscribeLive({ onBatch: (batch) => live.push(...batch) });
    cleanups.push(() => subscription.unsubscribe());

    const cli = cliRun('backoff-and-work.prose');
    const backoff = await cli.waitFor('the API task in its 10-minute backoff', isType('retryScheduled'));
    const agent = await cli.waitFor(
      "the long job's agent process",
      isType('attemptProcess', (e) => e.taskId !== backoff.taskId),
    );
    expect(backoff.delayMs).toBe(600_000);
    expect((await window.service.getRun({ runId: backoff.runId }))?.run.status).toBe('running');
    // Nothing changes while the host lives.
    expect(await window.service.checkHosts()).toEqual({ recovered: [], taken: [] });

    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(groupAlive(agent.pid)).toBe(true);

    const passes = await Promise.all([window.service.checkHosts(), other.service.checkHosts()]);
    const recovered = passes.flatMap((p) => p.recovered);
    expect(recovered.map((r) => r.runId)).toEqual([backoff.runId]);
    expect(recovered[0]!.processes).toEqual([expect.objectContaining({ taskId: agent.taskId, pgid: agent.pid, outcome: 'ended' })]);
    const detail = await window.service.getRun({ runId: backoff.runId });
    expect(detail?.run.status).toBe('interrupted');
    const journal = await window.store.getEvents(backoff.runId);
    expect(journal.filter((e) => e.type === 'runInterrupted')).toHaveLength(1);
    expect(journal.at(-1)).toMatchObject({
      type: 'runInterrupted',
      error: {
        code: 'SYSTEM_RUN_INTERRUPTED',
        message: `run ${backoff.runId} was interrupted: its host (pid ${cli.child.pid} on ${journal.find(isType('attemptProcess'))!.hostname}) is gone`,
      },
    });
    await expect.poll(() => !groupAlive(agent.pid), { message: "the agent's process group to be gone", timeout: 20_000 }).toBeTruthy();
    await expect
      .poll(() => live.some((e) => e.event.runId === backoff.runId && e.event.type === 'runInterrupted'), {
        message: "the window's live stream to carry the interruption",
        timeout: 20_000,
      })
      .toBeTruthy();
    // Nothing left for a later pass.
    expect(await other.service.checkHosts()).toEqual({ recovered: [], taken: [] });
  }, 60_000);

  it('a host on this machine stopped with SIGSTOP keeps its run however late its heartbeat, and finishes it once continued', async () => {
    // The watcher's clock is ten minutes ahead: every lease in the database looks long expired.
    const window = await watcher(() => Date.now() + 600_000);
    const cli = cliRun('short-work.prose');
    const started = await cli.waitFor("the job's agent process", isType('attemptProcess'));
    await pauseOutsideWrite(cli.child);
    expect(await window.service.checkHosts()).toEqual({ recovered: [], taken: [] });
    expect((await window.store.runHost(started.runId))?.alive).toBe(true);
    expect((await window.store.getRunRow(started.runId))?.status).toBe('running');
    cli.child.kill('SIGCONT');
    const [code] = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    expect((await window.store.getRunRow(started.runId))?.status).toBe('completed');
  }, 60_000);

  it('a host elsewhere whose lease ran out comes back to find its run interrupted: it stops it, ends its agent, journals nothing more and exits 1 saying so', async () => {
    const window = await watcher(() => Date.now() + 600_000);
    const cli = cliRun('backoff-and-work.prose');
    const backoff = await cli.waitFor('the API task in its backoff', isType('retryScheduled'));
    const agent = await cli.waitFor(
      "the long job's agent process",
      isType('attemptProcess', (e) => e.taskId !== backoff.taskId),
    );
    await pauseOutsideWrite(cli.child);
    // As another machine sees it: not a process it can ask about, only a lease that ran out.
    await sql('UPDATE hosts SET machine = ? WHERE pid = ?', ['another-machine/pid:[1]', cli.child.pid]);
    const recovered = await window.store.recoverInterrupted({ endLeftovers: leftoverReaper({ hostname: 'another-machine' }) });
    expect(recovered).toEqual([{ runId: backoff.runId, pid: cli.child.pid, processes: [expect.objectContaining({ pgid: agent.pid, outcome: 'otherHost' })] }]);
    const interrupted = await window.store.getEvents(backoff.runId);
    expect(interrupted.at(-1)).toMatchObject({ type: 'runInterrupted', error: { message: expect.stringContaining('let its lease expire') } });
    expect(groupAlive(agent.pid)).toBe(true);

    cli.child.kill('SIGCONT');
    const [code] = await cli.exited;
    expect(code, cli.stderr()).toBe(1);
    expect(cli.stderr()).toContain(
      `run ${backoff.runId} was interrupted by another host while this one was not heard from; this host stopped it and journaled nothing more of it`,
    );
    await expect.poll(() => !groupAlive(agent.pid), { message: 'the returning host to have ended its agent', timeout: 20_000 }).toBeTruthy();
    expect(await window.store.getEvents(backoff.runId)).toEqual(interrupted);
  }, 60_000);
});

describe('HostWatch (its timer and a store that misbehaves)', () => {
  /** A store double: only what the watch calls, answering what the test says, failing when told. */
  function fakeStore(behaviour: { recover: () => Promise<RecoveredRun[]>; status: (runId: string) => Promise<string | null> }): HivewatchStore {
    return {
      recoverInterrupted: () => behaviour.recover(),
      runsInStatus: async (runIds: readonly string[], wanted: string) => {
        const statuses = await Promise.all(runIds.map((runId) => behaviour.status(runId)));
        return runIds.filter((_, i) => statuses[i] === wanted);
      },
    } as unknown as HivewatchStore;
  }

  it('runs one pass per tick of its injected timer, at its interval; a pass asked for while one runs is that one', async () => {
    const ticks: { tick: () => void; ms: number }[] = [];
    let release: () => void = () => undefined;
    let passes = 0;
    const store = fakeStore({
      recover: () => {
        passes++;
        return new Promise((resolve) => (release = () => resolve([])));
      },
      status: () => Promise.resolve(null),
    });
    const watch = new HostWatch({
      store,
      hosted: () => [],
      onTaken: () => undefined,
      intervalMs: 250,
      scheduler: (tick, ms) => (ticks.push({ tick, ms }), () => undefined),
    });
    expect(ticks.map((t) => t.ms)).toEqual([250]);
    ticks[0]!.tick();
    const asked = watch.check();
    expect(passes).toBe(1);
    release();
    expect(await asked).toEqual({ recovered: [], taken: [] });
    const next = watch.check();
    release();
    await next;
    expect(passes).toBe(2);
    await watch.stop();
    expect(await watch.check()).toEqual({ recovered: [], taken: [] });
    expect(passes).toBe(2);
  });

  it("a recovery or a read that fails (the server away, the store closing) is tried again; this host's interrupted runs are handed over, others not", async () => {
    let failing = true;
    let clock = 1_000;
    const taken: string[][] = [];
    const statuses: Record<string, string | null> = { mine: 'interrupted', done: 'completed', going: 'running', unreadable: null, flaky: 'running' };
    const store = fakeStore({
      recover: () => (failing ? Promise.reject(new Error('server away')) : Promise.resolve([{ runId: 'theirs', pid: 7, processes: [] }])),
      status: (runId) => (runId === 'flaky' && failing ? Promise.reject(new Error('read failed')) : Promise.resolve(statuses[runId] ?? null)),
    });
    const watch = new HostWatch({
      store,
      hosted: () => ['mine', 'done', 'going', 'unreadable', 'flaky'],
      onTaken: (ids) => taken.push([...ids]),
      scheduler: never,
      regainMs: 12_000,
      now: () => clock,
    });
    // One read answers for every hosted run: when it fails, nothing is handed over this pass.
    expect(await watch.check()).toEqual({ recovered: [], taken: [] });
    failing = false;
    // The database is back: this host's taken runs are handed over at once, but no other host is
    // judged for a lease (no host could renew its lease while the database was away).
    expect(await watch.check()).toEqual({ recovered: [], taken: ['mine'] });
    clock += 11_999;
    expect((await watch.check()).recovered).toEqual([]);
    clock += 1;
    expect(await watch.check()).toEqual({ recovered: [{ runId: 'theirs', pid: 7, processes: [] }], taken: ['mine'] });
    expect(taken).toEqual([['mine'], ['mine'], ['mine']]);
    await watch.stop();
  });

  it('refuses an interval that is not a positive duration', () => {
    const store = fakeStore({ recover: () => Promise.resolve([]), status: () => Promise.resolve(null) });
    expect(() => new HostWatch({ store, hosted: () => [], onTaken: () => undefined, intervalMs: 0, scheduler: never })).toThrow(
      'the host watch interval must be a positive number of milliseconds',
    );
  });
});
