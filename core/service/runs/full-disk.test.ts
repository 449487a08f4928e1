import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { createHivewatchService } from '../service.js';

/**
 * A full disk, simulated with SQLite's own page limit (`PRAGMA max_page_count`, the same
 * SQLITE_FULL a full file system gives): the run stops as SYSTEM_EVENT_WRITE_FAILED, the service
 * keeps answering from what it has, nothing committed is lost, and once there is room the run's
 * last events land and resume completes it (hivemind-error-model.md §3.1). The sessions run on the
 * in-process noop runtime: the journal is under test, and 24 agent processes only made the test
 * take 50 s on a loaded machine.
 */

const SESSIONS = 24;
const padding = 'x'.repeat(1500);
const FLOW = 'agent worker:\n  runtime: "noop"\n' + Array.from({ length: SESSIONS }, (_, i) => `session: worker\n  prompt: "part ${i} ${padding}"\n`).join('');

const dirs: string[] = [];
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pageCount(sqlite: SqliteStore): number {
  // Fault injection reaches under the store on purpose: nothing in the product sets a page limit.
  return sqlite.database.pragma('page_count', { simple: true }) as number;
}

describe('a full disk while a run journals', () => {
  it('stops the run as SYSTEM_EVENT_WRITE_FAILED, keeps serving and every committed event, and resumes once there is room', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hivewatch-full-disk-'));
    dirs.push(dir);
    const flows = join(dir, 'flows');
    mkdirSync(flows);
    writeFileSync(join(flows, 'long.prose'), FLOW);
    const sqlite = openSqliteStore({ path: join(dir, 'hivewatch.db') });
    const store = sqliteContractStore(sqlite);
    const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: flows, clock: 'virtual', journalRetryDelaysMs: [] });
    closers.push(
      () => store.close(),
      () => service.close().catch(() => undefined),
    );
    const committed: HivewatchEvent[] = [];
    store.subscribe((events) => committed.push(...events));

    // Room for a few steps of 1.5 KB outputs, not for the whole run.
    sqlite.database.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.database.pragma(`max_page_count = ${pageCount(sqlite) + 12}`);
    const { runId } = await service.startRun({ flow: 'user/long.prose' });
    const result = await service.whenFinished(runId);

    expect(result?.status).toBe('failed');
    expect(result?.error?.code).toBe('SYSTEM_EVENT_WRITE_FAILED');
    expect(result?.error?.message).toMatch(/^could not journal \d+ event\(s\): database or disk is full$/);
    expect(result?.unjournaled?.code).toBe('SYSTEM_EVENT_WRITE_FAILED');

    // The service keeps serving what it has: the run as far as it was journaled.
    const detail = await service.getRun({ runId });
    expect(detail?.run.status).toBe('running');
    const journaled = await store.getEvents(runId);
    const finishedSteps = journaled.filter((e) => e.type === 'stepFinished').length;
    expect(finishedSteps).toBeGreaterThan(0);
    expect(finishedSteps).toBeLessThan(SESSIONS);
    // Nothing committed is lost: the journal is exactly what its commits announced, in order, with no gap.
    expect(journaled).toEqual(committed.filter((e) => e.runId === runId));
    expect(journaled.map((e) => e.seq)).toEqual(journaled.map((_, i) => i + 1));
    expect(sqlite.database.pragma('integrity_check', { simple: true })).toBe('ok');

    // While the disk is full, commands that must write say so instead of pretending.
    await expect(service.resumeRun({ runId })).rejects.toMatchObject({ status: 503, apiCode: 'journal_unwritable' });

    // Room again: the buffered last events land (the run reads failed), and resume completes it.
    sqlite.database.pragma('max_page_count = 1073741823');
    const resumed = await service.resumeRun({ runId });
    const after = await store.getEvents(runId);
    expect(after.slice(0, journaled.length)).toEqual(journaled);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
    expect(after.at(-1)).toMatchObject({ type: 'runFailed', error: { code: 'SYSTEM_EVENT_WRITE_FAILED' } });
    expect((await service.getRun({ runId }))?.run.status).toBe('failed');
    const end = await service.whenFinished(resumed.runId);
    expect(end?.status).toBe('completed');
    // Every session ran once overall: the original's up to its last checkpoint, the resumed run's after it.
    const checkpointed = Math.max(...after.flatMap((e) => (e.type === 'checkpointSaved' ? [e.step] : [])));
    const sessionsBefore = after.filter((e) => e.type === 'taskSucceeded' && e.step <= checkpointed).length;
    const sessionsRun = (await store.getEvents(resumed.runId)).filter((e) => e.type === 'taskSucceeded').length;
    expect(sessionsBefore + sessionsRun).toBe(SESSIONS);
  });
});
