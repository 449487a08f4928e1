import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { READS, READS_BY_ROLE } from './queries/index.js';
import type { Dialect, Query } from './queries/plan.js';
import { openSqliteStore } from './sqlite/store.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder, type ErrorSpec } from './testing/journal-builder.js';

/**
 * Every read of the table (queries/index.ts) is bound on every engine's store: reachable under
 * its name, answering what its own query answers when run directly, and the same on SQLite (both
 * faces) and PostgreSQL. A read added to the table without its case below fails tsc; one an
 * engine forgot to bind fails here.
 */

const T0 = Date.UTC(2026, 2, 1);
const HOUR = 3_600_000;
const TIMEOUT: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake exceeded its timeout of 30000ms' };

type ReadName = keyof typeof READS;
type ReadCases = { [K in ReadName]: Parameters<HivewatchStore[K]> };
type AnyRead = (...args: unknown[]) => unknown;

function journal() {
  const recovered = new JournalBuilder('run-a', { flow: 'flows/a.prose', flowName: 'a', start: T0 })
    .start()
    .runStep([{ attempts: [TIMEOUT, 'ok'] }])
    .complete();
  const failed = new JournalBuilder('run-b', { flow: 'flows/b.prose', flowName: 'b', start: T0 + HOUR })
    .start()
    .runStep([{ attempts: [TIMEOUT, TIMEOUT] }])
    .fail();
  const running = new JournalBuilder('run-c', { flow: 'flows/a.prose', flowName: 'a', start: T0 + 2 * HOUR }).start();
  return [...recovered.events, ...failed.events, ...running.events];
}

function cases(fingerprint: string): ReadCases {
  const window = { since: T0 - HOUR, until: T0 + 24 * HOUR };
  return {
    listRuns: [{ limit: 10 }],
    countRuns: [{}],
    getRun: ['run-b'],
    getRunRow: ['run-a'],
    runsInStatus: [['run-a', 'run-b', 'run-c'], 'failed'],
    runLineage: ['run-b'],
    resumePointForRun: ['run-b'],
    getEvents: ['run-a', 2, 3],
    getJournalPage: ['run-b'],
    eventsAfterCommit: [1, 5],
    journalHead: [],
    errorCounts: [{ by: 'code', ...window }],
    failureCounts: [{ by: 'flow', ...window }],
    errorSeries: [{ bucket: 'hour', stackBy: 'code', ...window }],
    errorGroups: [{}],
    groupTrends: [{ fingerprints: [fingerprint], grain: 'hour', ...window }],
    groupBins: [{ fingerprints: [fingerprint], bins: 4, ...window }],
    listErrors: [{ limit: 10 }],
    pendingCommands: [['run-c']],
    getCommand: ['cmd-1'],
    externalSession: ['no-such-session'],
    quietExternalSessions: [T0 + 24 * HOUR],
    attemptTelemetry: ['run-a'],
    getSetting: ['roles.test'],
  };
}

/** The store written alike on every engine: the journal, a pending command, a setting. */
async function fill(store: HivewatchStore): Promise<string> {
  await store.appendEvents(journal());
  await store.enqueueCommand({ commandId: 'cmd-1', runId: 'run-c', kind: 'cancel', reason: 'operator' });
  await store.setSetting('roles.test', 'kept');
  const groups = await store.errorGroups();
  expect(groups.map((group) => group.code)).toEqual(['RUNTIME_TIMEOUT']);
  return groups[0]!.fingerprint;
}

const names = Object.keys(READS) as ReadName[];
/** Each engine's answers by read name, to hold them to SQLite's. */
const answers = new Map<string, Map<ReadName, unknown>>();

const { engines, start, stop } = testEngines('reads', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

describe('the table of reads', () => {
  it('names each read once, whatever its role', () => {
    const byRole = Object.values(READS_BY_ROLE).flatMap((group) => Object.keys(group));
    expect(new Set(byRole).size).toBe(byRole.length);
    expect([...byRole].sort()).toEqual([...names].sort());
  });
});

describe.each(engines)('every read of the table on $name', (engine) => {
  it('is bound under its name and answers what its query answers', async () => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options, recover: false, now: () => T0 + 30 * HOUR });
    try {
      const read = cases(await fill(store));
      const answered = new Map<ReadName, unknown>();
      for (const name of names) {
        expect(typeof store[name], name).toBe('function');
        const bound = await (store[name] as AnyRead)(...read[name]);
        const query = READS[name] as (dialect: Dialect, ...args: unknown[]) => Query<unknown>;
        expect(bound, name).toEqual(await store.runStatements((dialect) => query(dialect, ...read[name])));
        answered.set(name, bound);
      }
      answers.set(engine.name, answered);
      // Nothing vacuous: the journal is there to read.
      expect(answered.get('journalHead')).toBeGreaterThan(0);
      expect(answered.get('getCommand')).toMatchObject({ commandId: 'cmd-1', runId: 'run-c' });
      expect(answered.get('getSetting')).toBe('kept');
      expect(answered.get('runsInStatus')).toEqual(['run-b']);
    } finally {
      await store.close();
    }
  });
});

describe('the engines', () => {
  it('answer every read alike, and SQLite’s synchronous face answers it too', async () => {
    const sqliteAnswers = answers.get(engines[0]!.name)!;
    const sqlite = openSqliteStore({ path: await engines[0]!.fresh(), recover: false, now: () => T0 + 30 * HOUR });
    try {
      sqlite.appendEvents(journal());
      sqlite.enqueueCommand({ commandId: 'cmd-1', runId: 'run-c', kind: 'cancel', reason: 'operator' });
      sqlite.setSetting('roles.test', 'kept');
      const read = cases(sqlite.errorGroups()[0]!.fingerprint);
      for (const name of names) expect((sqlite[name] as AnyRead)(...read[name]), name).toEqual(sqliteAnswers.get(name));
    } finally {
      sqlite.close();
    }
    for (const engine of engines.slice(1)) {
      const answered = answers.get(engine.name)!;
      for (const name of names) expect(answered.get(name), `${engine.name}: ${name}`).toEqual(sqliteAnswers.get(name));
    }
  });
});
