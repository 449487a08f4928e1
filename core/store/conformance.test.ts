import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import type { HivewatchStore } from './contract.js';
import { SCHEMA_VERSION } from './sqlite/migrate.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { retryLimit } from './testing/failure-journals.js';
import { RunTakenError } from './store-error.js';
import { hostileJournal, hostileSession, MEGABYTE } from './testing/hostile-journal.js';
import { postgresBinaries, postgresMissing } from './testing/test-databases.js';
import { JournalBuilder, randomJournals } from './testing/journal-builder.js';
import { IDENTIFIER_MAX_BYTES, storableBatch, storableKey, type StorageChange } from './projection/storable.js';
import { skipTitle } from '../testing/skip.js';

/**
 * The store contract (contract.ts), checked the same way on every engine, as LangGraph's
 * checkpoint savers share one suite: what the service, CLI and window rely on, through the
 * contract only. Engine-specific behaviour (WAL, pragmas, leases, LISTEN) has its own suites.
 */

const { engines, start, stop } = testEngines('conformance', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);
/** What each engine read back of the hostile values: the engines must agree byte for byte. */
const readBack = new Map<string, string>();

describe.each(engines)('the store contract on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const openAt = async (location: string, options: { now?: () => number; recover?: boolean } = {}): Promise<HivewatchStore> => {
    const store = await openStore({ path: location, ...engine.options, ...options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  const errorEvents = (journals: readonly HivewatchEvent[][]): HivewatchEvent[] => journals.flat().filter((e) => e.type === 'errorOccurred');

  it('journals batches with their projections: a run reads back as its events made it', async () => {
    const store = await openAt(await engine.fresh());
    const run = new JournalBuilder('run-a', { flow: 'flows/a.prose', flowName: 'a' })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }, 'ok'] }, { attempts: ['ok'] }])
      .complete();
    await store.appendEvents(run.events.slice(0, 3));
    await store.appendEvents(run.events.slice(3));
    expect(await store.getEvents('run-a')).toEqual(run.events);
    expect(await store.getEvents('run-a', 3, 2)).toEqual(run.events.slice(3, 5));
    const detail = (await store.getRun('run-a'))!;
    expect(detail.run).toMatchObject({ id: 'run-a', status: 'completed', flow: 'flows/a.prose', flowName: 'a', errorCount: 1, attemptCount: 3 });
    expect(detail.tasks.map((t) => [t.status, t.attempts])).toEqual([
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
    expect(await store.getRunRow('run-a')).toEqual(detail.run);
    expect(await store.getRun('nope')).toBeNull();
    expect((await store.listRuns()).runs.map((r) => r.id)).toEqual(['run-a']);
    expect(await store.countRuns()).toMatchObject({ total: 1, byStatus: { completed: 1 } });
    expect(await store.replayRun('run-a')).toMatchObject({ ok: true, diffs: [] });
  });

  it('refuses a batch with a seq gap whole, with the exact reason, and keeps what was committed', async () => {
    const store = await openAt(await engine.fresh());
    const run = new JournalBuilder('gap')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(run.events.slice(0, 2));
    const skipping = [run.events[2]!, run.events[4]!];
    await expect(store.appendEvents(skipping)).rejects.toThrow(`run gap: event seq 5 (${run.events[4]!.type}) but the journal expects 4`);
    expect((await store.getEvents('gap')).map((e) => e.seq)).toEqual([1, 2]);
    await store.appendEvents(run.events.slice(2));
    expect((await store.getRunRow('gap'))?.status).toBe('completed');
  });

  it('tells subscribers each commit with its walls and gap-free commit positions, in the journal tail order', async () => {
    const store = await openAt(await engine.fresh());
    const seen: { seqs: number[]; positions: number[]; walls: number }[] = [];
    store.subscribe((events, walls, positions) => seen.push({ seqs: events.map((e) => e.seq), positions: [...positions], walls: walls.length }));
    const journals = randomJournals(7, 3);
    for (const journal of journals) await store.appendEvents(journal);
    const total = journals.reduce((n, j) => n + j.length, 0);
    expect(seen.flatMap((s) => s.positions)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(seen.every((s) => s.walls === s.seqs.length)).toBe(true);
    expect(await store.journalHead()).toBe(total);
    const tail = await store.eventsAfterCommit(0, 100_000);
    expect(tail.map((c) => c.commitSeq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(tail.map((c) => c.event)).toEqual(journals.flat());
    expect((await store.eventsAfterCommit(total - 2)).map((c) => c.commitSeq)).toEqual([total - 1, total]);
  });

  it('counts errors exactly: every dimension sums to the journal’s errorOccurred events', async () => {
    const store = await openAt(await engine.fresh());
    const journals = randomJournals(11, 40);
    for (const journal of journals) await store.appendEvents(journal);
    const expected = errorEvents(journals).length;
    expect(expected).toBeGreaterThan(20);
    for (const by of ['category', 'origin', 'code', 'flow'] as const) {
      const counts = await store.errorCounts({ by });
      expect(counts.reduce((n, c) => n + c.count, 0)).toBe(expected);
    }
    const groups = await store.errorGroups({ limit: 1_000 });
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(expected);
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page = await store.listErrors({ limit: 25, cursor });
      listed += page.errors.length;
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(listed).toBe(expected);
    expect(await store.verifyAggregates()).toMatchObject({ ok: true });
  });

  it('settles each error occurrence at its run’s end and counts one failure per failed run (the failure model; failure-model.test.ts has every case)', async () => {
    const store = await openAt(await engine.fresh());
    const run = retryLimit('gave-up', 'chained');
    await store.appendEvents(run.events.slice(0, -1));
    const dispositions = async (): Promise<string[]> =>
      (await store.listErrors({ runId: 'gave-up' })).errors.map((e) => `${e.code}:${e.disposition}${e.ending ? ':ending' : ''}`);
    expect(await dispositions()).toEqual([
      'POLICY_RETRY_LIMIT_EXCEEDED:pending',
      'RUNTIME_TIMEOUT:pending',
      'RUNTIME_TIMEOUT:handled',
      'RUNTIME_TIMEOUT:handled',
    ]);
    await store.appendEvents(run.events.slice(-1));
    expect(await dispositions()).toEqual([
      'POLICY_RETRY_LIMIT_EXCEEDED:unhandled:ending',
      'RUNTIME_TIMEOUT:unhandled',
      'RUNTIME_TIMEOUT:handled',
      'RUNTIME_TIMEOUT:handled',
    ]);
    expect(await store.getRunRow('gave-up')).toMatchObject({ endingCode: 'POLICY_RETRY_LIMIT_EXCEEDED', endingRootCode: 'RUNTIME_TIMEOUT' });
    expect(await store.failureCounts({ by: 'rootCode' })).toEqual({ total: 1, rows: [{ key: 'RUNTIME_TIMEOUT', count: 1, label: null }] });
    expect((await store.listRuns({ code: 'RUNTIME_TIMEOUT' })).runs.map((r) => r.id)).toEqual(['gave-up']);
    expect((await store.replayRun('gave-up')).diffs).toEqual([]);
    expect((await store.verifyAggregates()).diffs).toEqual([]);
  });

  it('sees another connection’s commits and commands through the change token and the journal', async () => {
    const location = await engine.fresh();
    const window = await openAt(location);
    const host = await openAt(location, { recover: false });
    const before = await window.changeToken();
    const run = new JournalBuilder('remote').start();
    await host.appendEvents(run.events);
    const afterEvents = await window.changeToken();
    expect(afterEvents).not.toBe(before);
    expect((await window.eventsAfterCommit(0)).map((c) => c.event)).toEqual(run.events);

    // A token is compared with the same connection's earlier token (SQLite's data_version is per connection).
    const hostBefore = await host.changeToken();
    await window.enqueueCommand({ commandId: 'cmd-1', runId: 'remote', kind: 'cancel', reason: 'from the window' });
    expect(await host.changeToken()).not.toBe(hostBefore);
    expect(await host.pendingCommands(['remote'])).toMatchObject([{ commandId: 'cmd-1', kind: 'cancel', reason: 'from the window', state: 'pending' }]);
    expect(await host.completeCommand('cmd-1', { accepted: true })).toBe(true);
    expect(await host.completeCommand('cmd-1', { accepted: false })).toBe(false);
    expect(await window.getCommand('cmd-1')).toMatchObject({ state: 'done', accepted: true });
    expect(await host.pendingCommands(['remote'])).toEqual([]);
  });

  it('keeps settings, and gives every connection the same secret', async () => {
    const location = await engine.fresh();
    const [a, b] = [await openAt(location), await openAt(location, { recover: false })];
    expect(await a.getSetting('notify.muted-flows')).toBeNull();
    await a.setSetting('notify.muted-flows', '["x"]');
    expect(await b.getSetting('notify.muted-flows')).toBe('["x"]');
    const [first, second] = await Promise.all([a.secret('http.token', () => 'from-a'), b.secret('http.token', () => 'from-b')]);
    expect(first).toBe(second);
    await expect(a.setSetting('Not A Key', 'x')).rejects.toThrow('invalid setting name "Not A Key"');
  });

  it('recovers the runs a closed host left open, and leaves a live host’s runs alone', async () => {
    const location = await engine.fresh();
    const gone = await openAt(location);
    const orphan = new JournalBuilder('orphan')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .dieDuringStep([{ attempts: ['ok'] }]);
    await gone.appendEvents(orphan.events);
    const live = await openAt(location, { recover: false });
    const kept = new JournalBuilder('kept').start();
    await live.appendEvents(kept.events);
    await gone.close();

    const next = await openAt(location);
    expect(next.recovered.map((r) => r.runId)).toEqual(['orphan']);
    expect((await next.getRunRow('orphan'))?.status).toBe('interrupted');
    expect((await next.getRunRow('kept'))?.status).toBe('running');
    expect((await next.runHost('kept'))?.alive).toBe(true);
    expect((await next.getEvents('orphan')).slice(-2).map((e) => e.type)).toEqual(['errorOccurred', 'runInterrupted']);
    expect(await next.resumePointForRun('orphan')).toMatchObject({ fromRunId: 'orphan', throughStep: 1 });
    expect(await next.recoverInterrupted()).toEqual([]);
  });

  it('prunes ended runs older than the cutoff and their errors from every count', async () => {
    const t0 = Date.UTC(2026, 0, 1);
    const store = await openAt(await engine.fresh(), { now: () => t0 + 40 * 86_400_000 });
    const old = new JournalBuilder('old', { start: t0 })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake' }, 'ok'] }])
      .complete();
    const recent = new JournalBuilder('recent', { start: t0 + 39 * 86_400_000 })
      .start()
      .runStep([{ attempts: [{ code: 'RUNTIME_CRASHED', origin: 'runtime:fake' }, 'ok'] }])
      .complete();
    await store.appendEvents([...old.events, ...recent.events]);
    const report = await store.prune({ olderThanMs: 30 * 86_400_000 });
    expect(report).toMatchObject({ runs: 1, events: old.events.length, errors: 1 });
    expect((await store.listRuns()).runs.map((r) => r.id)).toEqual(['recent']);
    expect(await store.errorCounts({ by: 'code' })).toMatchObject([{ key: 'RUNTIME_CRASHED', count: 1 }]);
    expect(await store.verifyAggregates()).toMatchObject({ ok: true });
  });

  it('refuses a batch that continues a run another host interrupted as run_taken, naming the run, and writes nothing of it', async () => {
    const location = await engine.fresh();
    const host = await openAt(location, { recover: false });
    const other = new JournalBuilder('other').start();
    const taken = new JournalBuilder('taken')
      .start()
      .runStep([{ attempts: ['ok'] }])
      .dieDuringStep([{ attempts: ['ok'] }]);
    const cut = taken.events.length - 2;
    await host.appendEvents([...taken.events.slice(0, cut), ...other.events]);
    // Another host interrupts it (forced: this host is open in this test process, so it looks alive).
    const watcher = await openAt(location, { recover: false });
    expect((await watcher.recoverInterrupted({ runId: 'taken', force: true })).map((r) => r.runId)).toEqual(['taken']);
    const before = await host.getEvents('taken');

    const late = [...taken.events.slice(cut), { ...other.events[0]!, seq: 2, type: 'stepStarted', step: 1, frontier: [] } as HivewatchEvent];
    const refused = await host.appendEvents(late).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RunTakenError);
    expect(refused).toMatchObject({
      kind: 'run_taken',
      runIds: ['taken'],
      message: 'run taken was interrupted by another host while this one was not heard from; this host no longer owns it',
    });
    expect(await host.getEvents('taken')).toEqual(before);
    expect(before.at(-1)?.type).toBe('runInterrupted');
    // The batch was refused whole: the other run's event waits for the sink to send it again.
    expect((await host.getEvents('other')).map((e) => e.seq)).toEqual([1]);
    await host.appendEvents(late.slice(-1));
    expect((await host.getEvents('other')).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('refuses a database a newer Hivewatch wrote, naming both versions', async () => {
    const location = await engine.fresh();
    await (await openAt(location)).close();
    open.splice(0);
    await engine.makeNewer(location);
    await expect(openStore({ path: location, ...engine.options })).rejects.toThrow(
      `database schema version 99 is newer than this Hivewatch understands (${SCHEMA_VERSION}); upgrade Hivewatch`,
    );
  });

  it('stores hostile values (NUL, invalid UTF-8 and UTF-16, 1 MB identifiers, 1e308, 40 digits, -0, NaN) as storable.ts says, and reads them back', async () => {
    const store = await openAt(await engine.fresh());
    const hostile = hostileJournal('hostile');
    await store.appendEvents(hostile.events);
    // What storable.ts documents, through JSON (a free-form NaN is JSON's null on every engine).
    const expected = JSON.parse(JSON.stringify(storableBatch(hostile.events))) as HivewatchEvent[];
    const journal = await store.getEvents('hostile');
    expect(journal).toEqual(expected);
    const shortFlow = storableKey(hostile.longFlow);
    expect(Buffer.byteLength(shortFlow)).toBeLessThanOrEqual(IDENTIFIER_MAX_BYTES);
    expect(shortFlow).toMatch(/^flows\/f+\.sha256-[0-9a-f]{32}$/);
    const changes = journal.find((e) => e.type === 'taskSucceeded') as unknown as { output: string; storageChanges: StorageChange[] };
    expect(changes.output).toBe('fine\uFFFDbytes \uFFFD\uFFFD end');
    expect(changes.storageChanges).toEqual([{ path: 'output', rule: 'text', original: hostile.output }]);
    expect(hostile.output).toContain('\u0000');

    const detail = (await store.getRun('hostile'))!;
    expect(detail.run).toMatchObject({ flow: shortFlow, status: 'completed', errorCount: 1, flowName: 'name \uFFFD A\uFFFDB' });
    expect(detail.tasks[0]).toMatchObject({
      output: 'fine\uFFFDbytes \uFFFD\uFFFD end',
      maxAttempts: Number.MAX_SAFE_INTEGER,
      name: hostile.longTaskName,
      agent: storableKey('a'.repeat(MEGABYTE)),
    });
    expect(detail.attempts.map((a) => a.durationMs)).toEqual([null, Number.MAX_SAFE_INTEGER]);
    const [error] = (await store.listErrors()).errors;
    expect(error).toMatchObject({ origin: storableKey(hostile.longOrigin), message: 'failed with A\uFFFDB and \uFFFD and fine\uFFFDbytes \uFFFD\uFFFD end' });
    const counts = await store.errorCounts({ by: 'origin' });
    expect(counts).toMatchObject([{ key: storableKey(hostile.longOrigin), count: 1 }]);
    expect(await store.replayRun('hostile')).toMatchObject({ ok: true, diffs: [] });
    expect(await store.verifyAggregates()).toMatchObject({ ok: true });

    // A 1 MB run id is a key: its runs are stored (and read) under the hashed id.
    const longRun = new JournalBuilder('r'.repeat(MEGABYTE))
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(longRun.events);
    const shortRun = storableKey(longRun.runId);
    expect((await store.getEvents(shortRun)).map((e) => e.seq)).toEqual(longRun.events.map((e) => e.seq));
    expect((await store.getRunRow(shortRun))?.status).toBe('completed');

    // An agent session's 1 MB session id: its bookkeeping is found again by the key as the ingester makes it.
    const session = hostileSession('ext-hostile');
    await store.ingestExternal({ digest: 'd'.repeat(64), records: 1, receivedAt: 1, sessions: [session] }, []);
    const found = await store.externalSession(session.sessionKey);
    expect(found).toMatchObject({
      sessionKey: storableKey(session.sessionKey),
      sessionId: `${'s'.repeat(MEGABYTE)}\uFFFD`,
      parent: { runId: storableKey(session.parent!.runId), attempt: Number.MAX_SAFE_INTEGER },
      lastEventAt: Number.MAX_SAFE_INTEGER,
      openTask: storableKey(session.openTask!),
      openTaskAttempts: 3,
    });
    readBack.set(engine.name, JSON.stringify({ journal, detail, error, counts, groups: await store.errorGroups(), found }));
  });

  it('rejects (never throws) once closed', async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    await store.close();
    await expect(store.listRuns()).rejects.toThrow('the store is closed');
    await expect(store.appendEvents(new JournalBuilder('late').start().events)).rejects.toThrow('the store is closed');
  });
});

describe.skipIf(!postgresBinaries)(skipTitle('hostile values on both engines (needs PostgreSQL)', postgresMissing), () => {
  it('read back identically on SQLite (with and without read workers) and PostgreSQL (C and en-US)', () => {
    expect([...readBack.keys()].sort()).toEqual(['PostgreSQL', 'PostgreSQL en-US', 'SQLite', 'SQLite with 2 read workers']);
    expect(readBack.get('SQLite with 2 read workers')).toBe(readBack.get('SQLite'));
    expect(readBack.get('PostgreSQL')).toBe(readBack.get('SQLite'));
    expect(readBack.get('PostgreSQL en-US')).toBe(readBack.get('SQLite'));
  });
});
