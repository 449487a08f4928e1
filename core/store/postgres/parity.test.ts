import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import { findPostgres, startPostgresCluster, type PostgresCluster } from '../../testing/postgres-cluster.js';
import type { ExternalSessionRow } from '../queries/external.js';
import type { SqliteStore } from '../sqlite/types.js';
import { openSqliteStore } from '../sqlite/store.js';
import { JournalBuilder } from '../testing/journal-builder.js';
import { openPostgresStore } from './store.js';
import { skipTitle } from '../../testing/skip.js';

/**
 * The same journal in both engines answers every read the same. Not the conformance suite (the
 * lead writes that over the contract); this pins that the PostgreSQL store wires each method to
 * the right shared query with PostgreSQL's dialect, on a real database.
 */

const { binaries, reason } = findPostgres();
if (!binaries) console.warn(`PostgreSQL suites skipped: ${reason}`);

const T0 = Date.UTC(2026, 10, 20, 9, 0, 0);
const MINUTE = 60_000;
const NOW = T0 + 6 * 60 * MINUTE;

function journal(): HivewatchEvent[] {
  const alpha = { flow: 'flows/alpha.prose', flowName: 'alpha' };
  const beta = { flow: 'flows/beta.prose', flowName: 'beta' };
  const limit = { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:fake', message: 'rate limited, retry in 3s' } as const;
  const timeout = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'timed out after 30000 ms' } as const;
  return [
    ...new JournalBuilder('r1', { ...alpha, start: T0 })
      .start()
      .runStep([{ name: 'fetch the page', attempts: [limit, 'ok'] }])
      .complete().events,
    ...new JournalBuilder('r2', { ...alpha, start: T0 + 20 * MINUTE })
      .start()
      .runStep([{ name: 'fetch the page', attempts: ['ok'] }])
      .runStep([{ name: 'summarise it', attempts: [timeout, timeout] }])
      .fail().events,
    ...new JournalBuilder('r3', { ...beta, start: T0 + 70 * MINUTE })
      .start()
      .runStep([
        { name: 'Deploy', attempts: [timeout], caught: true },
        { name: 'notify', attempts: ['ok'] },
      ])
      .complete().events,
    ...new JournalBuilder('r4', { ...beta, start: T0 + 130 * MINUTE })
      .start()
      .runStep([{ name: 'Deploy', attempts: ['ok'] }])
      .cancelBetweenSteps().events,
    ...new JournalBuilder('r5', { ...alpha, start: T0 + 200 * MINUTE, retryOf: 'r2' })
      .start()
      .runStep([{ name: 'fetch the page', attempts: [limit, limit, 'ok'] }])
      .complete().events,
  ];
}

describe.skipIf(!binaries)(skipTitle('the PostgreSQL store answers as the SQLite store does', reason), () => {
  let cluster: PostgresCluster;
  let admin: pg.Client;
  let sqlite: SqliteStore;
  let postgres: Awaited<ReturnType<typeof openPostgresStore>>;
  let databases = 0;

  beforeAll(async () => {
    cluster = await startPostgresCluster(binaries!);
    admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    cluster?.stop();
  });
  afterEach(async () => {
    sqlite?.close();
    await postgres?.close();
  });

  async function both(): Promise<void> {
    const name = `parity_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const now = (): number => NOW;
    sqlite = openSqliteStore({ path: ':memory:', now });
    postgres = await openPostgresStore({ url: cluster.url(name), env: {}, now, log: () => undefined });
    const events = journal();
    // Two batches, so the second one's runs are reloaded from what the first one wrote.
    const cut = events.findIndex((e) => e.runId === 'r3');
    for (const batch of [events.slice(0, cut), events.slice(cut)]) {
      sqlite.appendEvents(batch);
      await postgres.appendEvents(batch);
    }
  }

  it('run list, counts, detail, lineage and the journal', async () => {
    await both();
    const lists = [
      {},
      { sort: 'status' },
      { sort: '-duration' },
      { sort: 'errors' },
      { sort: 'flow' },
      { text: 'ALP' },
      { text: 'deploy' },
      { text: 'timed out' },
      { status: 'failed' },
      { flow: 'beta' },
      { code: 'RUNTIME_TIMEOUT' },
      { since: T0 + MINUTE, until: T0 + 150 * MINUTE },
    ] as const;
    for (const query of lists) expect(await postgres.listRuns(query), JSON.stringify(query)).toEqual(sqlite.listRuns(query));
    const first = sqlite.listRuns({ limit: 2 });
    expect(await postgres.listRuns({ limit: 2 })).toEqual(first);
    expect(await postgres.listRuns({ limit: 2, cursor: first.nextCursor })).toEqual(sqlite.listRuns({ limit: 2, cursor: first.nextCursor }));
    for (const query of [{}, { flow: 'alpha' }, { text: 'fetch' }, { status: 'completed' }] as const) {
      expect(await postgres.countRuns(query), JSON.stringify(query)).toEqual(sqlite.countRuns(query));
    }
    for (const id of ['r1', 'r2', 'r3', 'r4', 'r5', 'missing']) {
      expect(await postgres.getRun(id), id).toEqual(sqlite.getRun(id));
      expect(await postgres.runLineage(id), id).toEqual(sqlite.runLineage(id));
    }
    expect(await postgres.getEvents('r2', 3, 5)).toEqual(sqlite.getEvents('r2', 3, 5));
    expect(await postgres.eventsAfterCommit(5, 10)).toEqual(sqlite.eventsAfterCommit(5, 10));
    expect(await postgres.journalHead()).toBe(sqlite.journalHead());
    expect(await postgres.resumePointForRun('r2')).toEqual(sqlite.resumePointForRun('r2'));
    expect(await postgres.replayRun('r3')).toEqual(sqlite.replayRun('r3'));
    expect(await postgres.verifyAggregates()).toEqual(sqlite.verifyAggregates());
    const { bytes: _pg, ...pgStats } = await postgres.stats();
    const { bytes: _sqlite, ...sqliteStats } = sqlite.stats();
    expect(pgStats).toEqual(sqliteStats);
  });

  it('error counts, series, groups, trends, bins and occurrences', async () => {
    await both();
    const window = { since: T0, until: T0 + 5 * 60 * MINUTE };
    for (const by of ['code', 'category', 'origin', 'flow', 'handled', 'run', 'task'] as const) {
      expect(await postgres.errorCounts({ by, ...window }), by).toEqual(sqlite.errorCounts({ by, ...window }));
      expect(await postgres.errorCounts({ by, flow: 'alpha', disposition: 'handled' }), by).toEqual(
        sqlite.errorCounts({ by, flow: 'alpha', disposition: 'handled' }),
      );
    }
    for (const bucket of ['minute', 'hour'] as const) {
      const query = { bucket, stackBy: 'code', ...window } as const;
      expect(await postgres.errorSeries(query), bucket).toEqual(sqlite.errorSeries(query));
    }
    const groups = sqlite.errorGroups();
    expect(await postgres.errorGroups()).toEqual(groups);
    expect(await postgres.errorGroups({ sort: 'last_seen', disposition: 'unhandled', ...window })).toEqual(
      sqlite.errorGroups({ sort: 'last_seen', disposition: 'unhandled', ...window }),
    );
    const fingerprints = groups.map((g) => g.fingerprint);
    expect(await postgres.groupTrends({ fingerprints, grain: 'hour', ...window })).toEqual(sqlite.groupTrends({ fingerprints, grain: 'hour', ...window }));
    expect(await postgres.groupBins({ fingerprints, bins: 12, ...window })).toEqual(sqlite.groupBins({ fingerprints, bins: 12, ...window }));
    // The rollup reads: each group's counts, per flow, and the trend rows themselves (a disposition).
    for (const extra of [{}, { flow: 'alpha' }, { disposition: 'handled' }] as const) {
      const trends = sqlite.groupTrends({ fingerprints, grain: 'hour', ...window, ...extra });
      expect(
        [...trends.trends.values()].flat().some((n) => n > 0),
        JSON.stringify(extra),
      ).toBe(true);
      expect(await postgres.groupTrends({ fingerprints, grain: 'hour', ...window, ...extra })).toEqual(trends);
    }
    for (const extra of [
      { grain: 'hour', bins: 3 },
      { grain: 'hour', bins: 3, flow: 'alpha' },
      { grain: 'day', bins: 2 },
    ] as const) {
      const bins = sqlite.groupBins({ fingerprints, ...window, ...extra });
      expect(
        [...bins.values()].flat().some((n) => n > 0),
        JSON.stringify(extra),
      ).toBe(true);
      expect(await postgres.groupBins({ fingerprints, ...window, ...extra })).toEqual(bins);
    }
    const page = sqlite.listErrors({ limit: 2 });
    expect(await postgres.listErrors({ limit: 2 })).toEqual(page);
    expect(await postgres.listErrors({ limit: 2, cursor: page.nextCursor })).toEqual(sqlite.listErrors({ limit: 2, cursor: page.nextCursor }));
    expect(await postgres.listErrors({ runId: 'r2', code: 'RUNTIME_TIMEOUT' })).toEqual(sqlite.listErrors({ runId: 'r2', code: 'RUNTIME_TIMEOUT' }));
  });

  it('commands, settings, external sessions and prune', async () => {
    await both();
    for (const store of [sqlite, postgres]) {
      await store.enqueueCommand({ commandId: 'c1', runId: 'r5', kind: 'cancel', reason: 'operator' });
      await store.enqueueCommand({ commandId: 'c2', runId: 'r5', kind: 'skipBackoff', taskId: '1:0' });
      await store.completeCommand('c1', { accepted: false, message: 'run already ended' });
      await store.setSetting('port', '4455');
    }
    expect(await postgres.pendingCommands(['r5', 'r1'])).toEqual(sqlite.pendingCommands(['r5', 'r1']));
    expect(await postgres.getCommand('c1')).toEqual(sqlite.getCommand('c1'));
    expect(await postgres.completeCommand('c1', { accepted: true })).toBe(false);
    expect(await postgres.getSetting('port')).toBe('4455');

    const session: ExternalSessionRow = {
      sessionKey: 'claude:s1',
      runId: 'ext-1',
      origin: 'claude-code',
      sessionId: 's1',
      parent: { runId: 'r5', taskId: '1:0', attempt: 2 },
      lastEventAt: T0 + 201 * MINUTE,
      idle: false,
      openTask: null,
      openTaskAttempts: 0,
      taskCount: 1,
      lastSeq: 1,
    };
    const batch = { digest: 'sha256:abc', records: 3, receivedAt: T0 + 201 * MINUTE, sessions: [session] };
    const external = new JournalBuilder('ext-1', { flow: 'external:claude-code', flowName: 'claude-code', start: T0 + 200 * MINUTE }).start().events;
    expect(sqlite.ingestExternal(batch, external)).toBe(true);
    expect(await postgres.ingestExternal(batch, external)).toBe(true);
    expect(await postgres.ingestExternal(batch, external)).toBe(false);
    expect(await postgres.externalSession('claude:s1')).toEqual(sqlite.externalSession('claude:s1'));
    expect(await postgres.quietExternalSessions(NOW)).toEqual(sqlite.quietExternalSessions(NOW));
    expect(await postgres.attemptTelemetry('r5')).toEqual(sqlite.attemptTelemetry('r5'));

    const olderThanMs = NOW - (T0 + 100 * MINUTE);
    const pruned = await postgres.prune({ olderThanMs });
    expect(pruned).toEqual(sqlite.prune({ olderThanMs }));
    expect(pruned.runs).toBe(3);
    expect(await postgres.listRuns()).toEqual(sqlite.listRuns());
    expect(await postgres.errorGroups()).toEqual(sqlite.errorGroups());
    expect(await postgres.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});
