import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { waiting } from '../../testing/waiting.js';
import type { HivewatchEvent } from '../../base/events.js';
import type { HivewatchStore } from '../../store/contract.js';
import { openPostgresStore } from '../../store/postgres/store.js';
import { postgresBinaries, postgresMissing } from '../../store/testing/test-databases.js';
import { outageFlow, type OutageFlow } from '../../testing/outage-flow.js';
import { startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { retryDelaysWithin } from './journal-env.js';
import { createHivewatchService, type HivewatchService } from '../service.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * A database that goes away, under a serve-like host (the service over a PostgreSQL store, in this process)
 * whose database goes away mid-run: a real cluster stopped and started again, or restarted
 * immediately (as a crash). The outage's length is set against the journal's retry window
 * (HIVEWATCH_JOURNAL_RETRY_MS's setting): one the retries outlast, one they do not. `npm run
 * faults -- --only pg` runs the same with real 2, 10 and 30 s outages and real `hivewatch` hosts.
 * Nothing committed may be lost, and no run may stay `running` once the server is back.
 */

if (!postgresBinaries) console.warn(`PostgreSQL outage suite skipped: ${postgresMissing}`);

let cluster: PostgresCluster;
let count = 0;
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  if (!postgresBinaries) return;
  cluster = await startPostgresCluster(postgresBinaries, { durableCommits: true });
}, 60_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  if (postgresBinaries) cluster.stop();
});

interface Host {
  service: HivewatchService;
  store: HivewatchStore;
  flow: OutageFlow;
  /** Every event the store told its subscribers it committed, in order. */
  committed: HivewatchEvent[];
  /** Journal writes that failed (the host did try to write during the outage). */
  failedWrites(): number;
  /** What the store logged. */
  log: string[];
  url: string;
}

async function startHost(retryWindowMs: number): Promise<Host> {
  const name = `outage_${++count}`;
  // A connection of its own each time: an earlier test's outage ended every connection it had.
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = cluster.url(name);
  const dir = mkdtempSync(join(tmpdir(), 'hw-pg-outage-'));
  dirs.push(dir);
  const flow = outageFlow(dir);
  const log: string[] = [];
  const store = await openPostgresStore({ url, log: (line) => log.push(line) });
  let failed = 0;
  // The real store, watched: counts the journal writes that failed.
  const watched = new Proxy(store, {
    get(target, key) {
      if (key === 'appendEvents') {
        return (...args: Parameters<HivewatchStore['appendEvents']>) =>
          target.appendEvents(...args).catch((error: unknown) => {
            failed += 1;
            throw error;
          });
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const service = await createHivewatchService({
    store: watched,
    examplesDir: EXAMPLES_DIR,
    userFlowsDir: flow.flowsDir,
    clock: 'real',
    journalRetryDelaysMs: retryDelaysWithin(retryWindowMs),
    // As serve and the app: its passes are how the host knows the database is away (databaseStatus).
    watchHosts: true,
  });
  closers.push(
    () => store.close(),
    () => service.close({ timeoutMs: 5_000 }),
  );
  const committed: HivewatchEvent[] = [];
  store.subscribe((events) => committed.push(...events));
  return { service, store, flow, committed, failedWrites: () => failed, log, url };
}

/** Starts the flow and returns once session 1 is journaled and session 2's agent is at work. */
async function startRun(host: Host): Promise<string> {
  const { runId } = await host.service.startRun({ flow: 'user/outage.prose' });
  host.flow.go(1);
  // vi.waitFor, not expect.poll: this helper may run in a hook.
  await vi.waitFor(async () => (await host.store.getEvents(runId)).some((e) => e.type === 'attemptProcess' && e.step === 2) || waiting('session 2 at work'), {
    timeout: 20_000,
  });
  return runId;
}

/** The run's journal read by a store of its own (reads through the host would flush its journal). */
async function journalOf(url: string, runId: string): Promise<HivewatchEvent[]> {
  const reader = await openPostgresStore({ url, recover: false, log: () => undefined });
  try {
    return await reader.getEvents(runId);
  } finally {
    await reader.close();
  }
}

function expectWhole(journal: readonly HivewatchEvent[], committed: readonly HivewatchEvent[], runId: string): void {
  expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i + 1));
  expect(journal).toEqual(committed.filter((e) => e.runId === runId));
}

describe.skipIf(!postgresBinaries)(skipTitle('a serve-like host whose PostgreSQL server goes away mid-run', postgresMissing), () => {
  it('rides out an outage its retries outlast: the run completes, nothing is lost, one log line each way', async () => {
    const host = await startHost(120_000);
    const runId = await startRun(host);
    cluster.halt();
    for (let i = 0; i < 3; i += 1) await expect(host.service.getRun({ runId })).rejects.toMatchObject({ status: 503, apiCode: 'store_unavailable' });
    host.flow.go(2);
    await expect.poll(() => host.failedWrites() > 0, { message: 'a journal write failed during the outage', timeout: 20_000 }).toBeTruthy();
    // What the window's banner shows: the database away, this host's run waiting.
    await expect
      .poll(() => host.service.databaseStatus(), { message: 'the host saying the database is away', timeout: 20_000 })
      .toMatchObject({ unavailableForMs: expect.any(Number), waitingRuns: 1 });
    cluster.restart();
    await expect
      .poll(() => host.service.databaseStatus(), { message: 'the host saying the database is back', timeout: 20_000 })
      .toEqual({ unavailableForMs: null, waitingRuns: 0 });
    host.flow.go(3);
    const result = await host.service.whenFinished(runId);
    expect(result).toMatchObject({ status: 'completed' });
    expect(result?.unjournaled).toBeUndefined();
    const journal = await journalOf(host.url, runId);
    expectWhole(journal, host.committed, runId);
    expect(journal.at(-1)?.type).toBe('runCompleted');
    expect(
      host.log.filter((l) => l.includes('is unavailable')),
      host.log.join('\n'),
    ).toHaveLength(1);
    expect(
      host.log.filter((l) => l.includes('is back')),
      host.log.join('\n'),
    ).toHaveLength(1);
    expect(host.log.join('\n')).not.toMatch(/\n\s+at /);
  });

  it('past its retry window: the run stops as SYSTEM_EVENT_WRITE_FAILED and its last events land as soon as the server is back, with no request', async () => {
    const host = await startHost(300);
    const runId = await startRun(host);
    const before = await host.store.getEvents(runId);
    cluster.halt();
    host.flow.go(2);
    const result = await host.service.whenFinished(runId);
    expect(result).toMatchObject({ status: 'failed', error: { code: 'SYSTEM_EVENT_WRITE_FAILED' }, unjournaled: { code: 'SYSTEM_EVENT_WRITE_FAILED' } });
    cluster.restart();
    // Only a store of the test's own reads: nothing asks the host to flush.
    await expect
      .poll(async () => (await journalOf(host.url, runId)).at(-1)?.type === 'runFailed', { message: 'the run journaled failed', timeout: 20_000 })
      .toBeTruthy();
    const journal = await journalOf(host.url, runId);
    expect(journal.slice(0, before.length)).toEqual(before);
    expectWhole(journal, host.committed, runId);
    expect(journal.at(-1)).toMatchObject({ type: 'runFailed', error: { code: 'SYSTEM_EVENT_WRITE_FAILED' } });

    host.flow.go(3);
    const resumed = await host.service.resumeRun({ runId });
    expect(await host.service.whenFinished(resumed.runId)).toMatchObject({ status: 'completed' });
  });

  it('survives pg_ctl restart -m immediate mid-run: the run completes and every committed event is in the journal', async () => {
    const host = await startHost(120_000);
    const runId = await startRun(host);
    cluster.restartImmediately();
    host.flow.go(2);
    host.flow.go(3);
    expect(await host.service.whenFinished(runId)).toMatchObject({ status: 'completed' });
    const journal = await journalOf(host.url, runId);
    expectWhole(journal, host.committed, runId);
    expect(journal.at(-1)?.type).toBe('runCompleted');
  });
});
