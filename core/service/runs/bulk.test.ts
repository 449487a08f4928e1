import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../../store/testing/test-databases.js';
import { skipTitle } from '../../testing/skip.js';
import type { BulkResult } from '../api.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/**
 * Bulk actions on both engines: a filter resolved on the server, one journaled
 * command per run with its own id, and a refusal with its reason for every run the action does
 * not fit. Runs that stay active use the real fake runtime: a minute-long session, or an hour in
 * backoff on the real clock; the suite cancels what it started.
 */

const SLOW = `agent worker:
  runtime: "fake"

session: worker
  prompt: "Slow"
  simulate: "slow:60s"
`;
const WAITS = `agent worker:
  runtime: "fake"

session: worker
  prompt: "Call the slow API"
  retry: 1
  backoff: "fixed"
  delay: "1h"
  max-delay: "2h"
  simulate: "crash, ok"
`;

let dir: string;
let store: HivewatchStore;
let service: HivewatchService;

const databases = new TestDatabases();
beforeAll(async () => {
  if (postgresBinaries) await databases.start();
}, 60_000);
afterAll(async () => {
  if (postgresBinaries) await databases.stop();
});

const sqlite = { name: 'SQLite', fresh: () => Promise.resolve(join(dir, 'hivewatch.db')) };
const postgres = { name: 'PostgreSQL', fresh: () => databases.fresh('bulk') };

/** The run's status once the database has it. */
async function statusOf(runId: string): Promise<string | undefined> {
  return (await store.getRunRow(runId))?.status;
}

async function startRunning(flow: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await service.startRun({ flow })).runId);
  for (const id of ids) await expect.poll(() => statusOf(id), { timeout: 20_000 }).toBe('running');
  return ids;
}

const byRun = (result: BulkResult): Map<string, BulkResult['results'][number]> => new Map(result.results.map((r) => [r.runId, r]));

function bulkSuite(engine: { fresh: () => Promise<string> }): void {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hw-bulk-'));
    const userFlowsDir = join(dir, 'flows');
    mkdirSync(userFlowsDir);
    writeFileSync(join(userFlowsDir, 'slow.prose'), SLOW);
    writeFileSync(join(userFlowsDir, 'waits.prose'), WAITS);
    store = await openStore({ path: await engine.fresh() });
    service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir, clock: 'real', tailIntervalMs: 10 });
  });
  afterEach(async () => {
    await service.close({ timeoutMs: 5_000 });
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves a filter on the server, previews without acting, then journals one cancel per run with its own command id', async () => {
    const running = await startRunning('user/slow.prose', 3);
    await store.appendEvents(
      new JournalBuilder('done-1', { flow: 'user/slow.prose', flowName: 'slow' })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    );

    const preview = await service.bulkRuns({ action: 'cancel', where: { flow: 'user/slow.prose' }, dryRun: true });
    expect(preview).toMatchObject({ action: 'cancel', dryRun: true, matched: 4, done: 3, refused: 1 });
    expect(byRun(preview).get('done-1')).toEqual({ runId: 'done-1', outcome: 'refused', message: 'run done-1 is completed; nothing to cancel' });
    for (const id of running) expect(await statusOf(id)).toBe('running');

    const result = await service.bulkRuns({ action: 'cancel', where: { status: ['running'], flow: 'user/slow.prose' } });
    expect(result).toMatchObject({ dryRun: false, matched: 3, done: 3, refused: 0 });
    const commandIds = result.results.map((r) => r.commandId);
    expect(new Set(commandIds).size).toBe(3);
    for (const id of running) await service.whenFinished(id);
    for (const { runId, commandId } of result.results) {
      expect(await statusOf(runId)).toBe('cancelled');
      const requested = (await store.getEvents(runId, 0, 1_000)).filter((e) => e.type === 'cancelRequested');
      expect(requested.map((e) => (e as { commandId?: string }).commandId)).toEqual([commandId]);
    }
  });

  it('refuses per run and says why: finished, unknown, not resumable, not waiting, a completed run in a bulk retry', async () => {
    const [slow] = await startRunning('user/slow.prose', 1);
    const [waits] = await startRunning('user/waits.prose', 1);
    await expect.poll(async () => (await store.getRunRow(waits as string))?.nextAttemptAt ?? null, { timeout: 20_000 }).not.toBeNull();
    await store.appendEvents(
      new JournalBuilder('done-1', { flow: 'user/slow.prose', flowName: 'slow' })
        .start()
        .runStep([{ attempts: ['ok'] }])
        .complete().events,
    );
    const ids = [slow as string, waits as string, 'done-1', 'no-such-run'];

    const resumed = byRun(await service.bulkRuns({ action: 'resume', runIds: ids }));
    expect(resumed.get(slow as string)?.message).toBe(`run ${slow} is running; only failed, cancelled or interrupted runs can be resumed`);
    expect(resumed.get('done-1')?.message).toBe('run done-1 is completed; only failed, cancelled or interrupted runs can be resumed');
    expect(resumed.get('no-such-run')).toEqual({ runId: 'no-such-run', outcome: 'refused', message: 'no run no-such-run' });

    const retried = byRun(await service.bulkRuns({ action: 'retry', runIds: ids }));
    expect(retried.get(waits as string)?.message).toBe(`run ${waits} is running; cancel it or let it finish before retrying`);
    expect(retried.get('done-1')?.message).toBe('run done-1 completed; a completed run is retried on its own, never in bulk');

    const now = await service.bulkRuns({ action: 'retryNow', runIds: ids });
    expect(byRun(now).get(slow as string)?.message).toBe(`run ${slow} is not waiting in a backoff`);
    expect(byRun(now).get(waits as string)).toMatchObject({ outcome: 'done', commandId: expect.stringMatching(/^cmd_/) });
    expect(now).toMatchObject({ matched: 4, done: 1, refused: 3 });
    const skippedBy = async (): Promise<unknown[]> =>
      (await store.getEvents(waits as string, 0, 1_000)).filter((e) => e.type === 'backoffSkipped').map((e) => (e as { commandId?: string }).commandId);
    await expect.poll(skippedBy, { timeout: 20_000 }).toEqual([byRun(now).get(waits as string)?.commandId]);

    await service.bulkRuns({ action: 'cancel', runIds: [slow as string] });
    await service.whenFinished(slow as string);
    await service.whenFinished(waits as string);
  });

  it('retries and resumes what ended, each into a new run linked to its original', async () => {
    const running = await startRunning('user/slow.prose', 2);
    await service.bulkRuns({ action: 'cancel', runIds: running });
    for (const id of running) await service.whenFinished(id);

    // A filter of a status alone takes every such run: said with `all`.
    const retried = await service.bulkRuns({ action: 'retry', where: { status: ['cancelled'] }, all: true });
    expect(retried).toMatchObject({ matched: 2, done: 2, refused: 0 });
    const resumed = await service.bulkRuns({ action: 'resume', runIds: running });
    expect(resumed).toMatchObject({ matched: 2, done: 2, refused: 0 });
    for (const result of [...retried.results, ...resumed.results]) {
      const row = await store.getRunRow(result.newRunId as string);
      expect(row?.retryOf ?? row?.resumedFrom).toBe(result.runId);
    }
    const started = [...retried.results, ...resumed.results].map((r) => r.newRunId as string);
    await service.bulkRuns({ action: 'cancel', runIds: started });
    for (const id of started) await service.whenFinished(id);
  });

  it('refuses to cancel a run no live process hosts: it is interrupted instead, and the result says so', async () => {
    // Another host journaled its start and closed without ending it.
    const gone = await openStore({ path: store.location });
    await gone.appendEvents(new JournalBuilder('orphan', { flow: 'user/slow.prose', flowName: 'slow', start: Date.now() }).start().events);
    await gone.close();
    const preview = await service.bulkRuns({ action: 'cancel', runIds: ['orphan'], dryRun: true });
    expect(preview.results).toEqual([
      {
        runId: 'orphan',
        outcome: 'refused',
        message: `run orphan is owned by a dead host (pid ${process.pid}); it would be marked interrupted, not cancelled`,
      },
    ]);
    const result = await service.bulkRuns({ action: 'cancel', runIds: ['orphan'] });
    expect(result.results).toEqual([
      { runId: 'orphan', outcome: 'refused', message: `run orphan was not cancelled but interrupted: its host process (pid ${process.pid}) is gone` },
    ]);
    expect(await statusOf('orphan')).toBe('interrupted');
  });

  it('acts on a text filter past its count cap by its pages, and refuses it only past 10,000 runs', async () => {
    const T0 = Date.UTC(2026, 0, 1);
    const events = [];
    for (let i = 0; i <= 10_000; i++)
      events.push(...new JournalBuilder(`hist-${i}`, { flow: 'user/slow.prose', flowName: 'slow', start: T0 + i * 1_000 }).start().complete().events);
    await store.appendEvents(events);
    // The count stops at 2,000 (atLeast): 10,001 runs are found by paging, and refused.
    expect((await store.countRuns({ text: 'hist-' })).atLeast).toBe(true);
    await expect(service.bulkRuns({ action: 'cancel', where: { text: 'hist-' }, dryRun: true })).rejects.toThrow('the filter matches more than 10000 runs');
    // 3,000 of them (a capped count under a window) are taken whole.
    const preview = await service.bulkRuns({ action: 'cancel', where: { text: 'hist-', since: T0 + 7_001_000 }, dryRun: true });
    expect(preview).toMatchObject({ matched: 3_000, done: 0, refused: 3_000 });
  }, 120_000);

  it('rejects input that names no runs, both ids and a filter, or an unknown action', async () => {
    await expect(service.bulkRuns({ action: 'cancel' })).rejects.toThrow('give either runIds or where, not both and not neither');
    await expect(service.bulkRuns({ action: 'cancel', runIds: ['a'], where: {} })).rejects.toThrow('give either runIds or where, not both and not neither');
    await expect(service.bulkRuns({ action: 'stop' as never, runIds: ['a'] })).rejects.toThrow('action: must be one of cancel, retry, resume, retryNow');
    await expect(service.bulkRuns({ action: 'cancel', runIds: [] })).rejects.toThrow('runIds: must name at least one run');
  });

  it('refuses a filter that would widen: empty values, and statuses alone without all', async () => {
    const refusal = (where: object, all?: boolean) =>
      service.bulkRuns({ action: 'cancel', where, ...(all === undefined ? {} : { all }), dryRun: true }).then(
        () => 'accepted',
        (e: { status: number; apiCode: string; message: string }) => `${e.status} ${e.apiCode}: ${e.message}`,
      );
    expect(await refusal({ status: ['running'] })).toBe(
      '400 broad_filter: where names no flow, text, error, issue or time, so it would act on every running run; send all: true if that is what you mean',
    );
    expect(await refusal({})).toBe(
      '400 broad_filter: where names no flow, text, error, issue or time, so it would act on every run; send all: true if that is what you mean',
    );
    expect(await refusal({ status: ['running'], text: '' })).toBe('400 invalid_input: where.text: must not be empty or blank');
    expect(await refusal({ status: ['running'], text: '   ' })).toBe('400 invalid_input: where.text: must not be empty or blank');
    expect(await refusal({ flow: '' })).toBe('400 invalid_input: where.flow: must not be empty or blank');
    expect(await refusal({ status: [], flow: 'user/slow.prose' })).toBe('400 invalid_input: where.status: must name at least one status');
    expect(await refusal({ status: ['running'], owner: 'me' })).toBe('400 invalid_input: where: unknown field "owner"');
    expect(await refusal({ status: ['running'] }, true)).toBe('accepted');
    await expect(service.bulkRuns({ action: 'cancel', runIds: ['a'], all: true })).rejects.toThrow(
      'all goes with where (every run of its statuses), not with runIds',
    );
  });
}

describe('bulk actions on SQLite', () => bulkSuite(sqlite));
describe.skipIf(!postgresBinaries)(skipTitle('bulk actions on PostgreSQL', postgresMissing), () => bulkSuite(postgres));
