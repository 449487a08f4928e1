import { describe, expect, it } from 'vitest';
import { completeCommand, enqueueCommand, getCommand, pendingCommands, runHost } from './commands.js';
import { attemptTelemetry, externalSession, quietExternalSessions, rememberPayload, writeSessions } from './external.js';
import { resumePointForRun } from '../hosts/recovery.js';
import { replayRun, verifyAggregates } from '../maintenance/replay.js';
import { ensureSetting, getSetting, setSetting } from './settings.js';
import { takenRuns } from '../hosts/taken-runs.js';
import { JournalBuilder } from '../testing/journal-builder.js';
import { errorCounts, errorSeries, listErrors, type ErrorDimension } from './errors.js';
import { allEvents, allJournal, eventsAfterCommit, getEvents, getJournalPage, journalHead } from './events.js';
import { settleHistory } from '../projection/settle-history.js';
import { FAILURE_DIMENSIONS, failureCounts } from './failures.js';
import { errorGroups, groupBins, groupTrends } from './groups.js';
import { runLineage } from './lineage.js';
import { Dialect, type Query, type SqlStep } from './plan.js';
import { RUN_SORT_KEYS } from '../../common/run-filter.js';
import { flowFiles, getRun, getRunRow, listRuns, runFilters, runsInStatus } from './runs.js';
import { countRuns } from './run-counts.js';
import { encodeCursor } from './sql.js';

/**
 * Every store query, driven without a database for PostgreSQL: the statements it yields must
 * hold no SQLite-only syntax. (That they mean the same on a real server is the conformance
 * suite's proof; this is the guard that a SQLite-only fragment never reaches the PG engine.)
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One row with every column the queries read, so their post-processing runs. */
const ROW: Record<string, unknown> = {
  id: 'r1',
  run_id: 'r1',
  flow: 'a.prose',
  flow_name: 'a',
  status: 'failed',
  started_at: 5,
  started_wall: 5,
  sort_value: 5,
  n: 1,
  k: 'a.prose',
  bucket: 0,
  fingerprint: 'fp',
  label: 'a',
  task_id: 't',
  value: 'v',
  count: 1,
  unhandled: 1,
  first_seen: 1,
  last_seen: 2,
  hits: 1,
  total: 1,
  commit_seq: 1,
  seq: 1,
  ts: 1,
  wall: null,
  type: 'runStarted',
  payload: '{}',
  bin: 0,
  command_id: 'c1',
  kind: 'cancel',
  created_at: 1,
  state: 'pending',
  accepted: null,
  message: null,
  session_key: 's',
  session_id: 's',
  origin: 'o',
  idle: 0,
  last_event_at: 1,
  open_task: null,
  open_task_attempts: 0,
  task_count: 0,
  last_seq: 1,
  parent_run_id: null,
  parent_task_id: null,
  parent_attempt: null,
  pid: 1,
  hostname: 'h',
  instance: 'i',
};

type Answer = (step: SqlStep) => unknown;

/** The default database: one full row for every read, one change for every write. */
const oneRow: Answer = (step) => (step.mode === 'all' ? [ROW] : step.mode === 'get' ? ROW : { changes: 1 });

/** A database with nothing in it. */
const empty: Answer = (step) => (step.mode === 'all' ? [] : step.mode === 'get' ? undefined : { changes: 0 });

/** Runs a query to its end, answering each statement, and returns the statements it asked. */
function stepsOf<T>(query: Query<T>, answer: Answer = oneRow): SqlStep[] {
  const steps: SqlStep[] = [];
  let step = query.next();
  while (!step.done) {
    steps.push(step.value);
    step = query.next(answer(step.value));
  }
  return steps;
}

/** The index just past the parenthesis that closes the one at `open`. */
function closing(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i += 1) {
    if (sql[i] === '(') depth += 1;
    else if (sql[i] === ')' && --depth === 0) return i + 1;
  }
  return sql.length;
}

/** `FROM (subquery)` without a name, which PostgreSQL 15 rejects ("subquery in FROM must have an alias"). */
function unnamedSubquery(sql: string): string | null {
  for (const match of sql.matchAll(/\bFROM\s*\(/gi)) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const after = sql.slice(closing(sql, open)).trimStart();
    const next = /^\w+/.exec(after)?.[0]?.toUpperCase() ?? '';
    if (next === '' || ['WHERE', 'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'UNION', 'JOIN', 'LEFT', 'INNER', 'ON'].includes(next)) {
      return sql.slice(match.index ?? 0, closing(sql, open) + 20);
    }
  }
  return null;
}

const SQLITE_ONLY: { rule: string; found: (sql: string) => string | null }[] = [
  ...(
    [
      ['FTS5 MATCH', /\bMATCH\b/i],
      ['json_each', /\bjson_each\b/i],
      ['rowid', /\browid\b/i],
      ['index hint +column', /(^|[\s(,])\+(status|flow)\b/],
      ['scalar two-argument MIN/MAX', /\b(MIN|MAX)\s*\([^()]*,/i],
      ['pragma', /\bpragma\b/i],
      ['camelCase alias (PostgreSQL folds it to lower case)', /\bAS\s+[a-z]+[A-Z]\w*/],
      ['integer column as a truth value', /\b(caught|retrying)\s+(OR|AND|THEN)\b|\bWHEN\s+[\w.]*handled\s+THEN\b|\bNOT\s+\(\s*[\w.]*caught\b/i],
      ['case-sensitive LIKE (SQLite LIKE ignores ASCII case)', /(?<![I\w])LIKE\b/],
    ] as const
  ).map(([rule, pattern]) => ({ rule, found: (sql: string) => pattern.exec(sql)?.[0] ?? null })),
  { rule: 'unnamed subquery in FROM', found: unnamedSubquery },
];

/** The SQLite-only constructs in the statements, as `rule: fragment in <sql>` lines. */
function sqliteOnly(steps: readonly SqlStep[]): string[] {
  const problems: string[] = [];
  for (const { sql } of steps) {
    for (const { rule, found } of SQLITE_ONLY) {
      const fragment = found(sql);
      if (fragment !== null) problems.push(`${rule}: "${fragment}" in ${sql.replace(/\s+/g, ' ')}`);
    }
  }
  return problems;
}

const cursor = encodeCursor(['-started', 5, 'r1']);
const text = 'timeout waiting';
const filters = { status: ['failed', 'running'] as const, flow: 'a', code: 'TOOL_TIMEOUT', category: 'tool', text, since: 0, until: DAY };
const errorFilters = { flow: 'a', category: 'tool', origin: 'tool', code: 'TOOL_TIMEOUT', handled: false };
const window = { since: HOUR / 2, until: 3 * DAY + HOUR / 2 };
const dimensions: ErrorDimension[] = ['category', 'origin', 'code', 'flow', 'handled', 'run', 'task'];
const session = {
  sessionKey: 's',
  runId: 'r1',
  origin: 'o',
  sessionId: 's',
  parent: { runId: 'r0', taskId: '1:0', attempt: 1 },
  lastEventAt: 1,
  idle: false,
  openTask: null,
  openTaskAttempts: 0,
  taskCount: 0,
  lastSeq: 0,
};

/** Every converted query with representative filters, as a function of the dialect. */
const QUERIES: Record<string, (d: Dialect) => SqlStep[]> = {
  'flowFiles (a flow name)': (d) => stepsOf(flowFiles(d, 'a'), (s) => (s.mode === 'get' ? undefined : [ROW])),
  // The conditions themselves, as the statement a caller would put them in.
  runFilters: (d) => {
    let conditions = '';
    const asked = stepsOf(
      (function* () {
        conditions = (yield* runFilters(d, filters))?.where() ?? '';
      })(),
    );
    return [...asked, { mode: 'all', sql: `SELECT id FROM runs${conditions}`, params: [] }];
  },
  'listRuns (short text)': (d) => stepsOf(listRuns(d, { text: 'ti' })),
  'countRuns (text)': (d) => stepsOf(countRuns(d, { text })),
  ...Object.fromEntries(
    RUN_SORT_KEYS.flatMap((key) =>
      [key, `-${key}`].map((sort) => [`listRuns (${sort}, every filter)`, (d: Dialect) => stepsOf(listRuns(d, { ...filters, sort: sort as typeof key }))]),
    ),
  ),
  'listRuns (cursor)': (d) => stepsOf(listRuns(d, { ...filters, cursor, limit: 1 })),
  'countRuns (every filter)': (d) => stepsOf(countRuns(d, filters)),
  'countRuns (no filter)': (d) => stepsOf(countRuns(d, {})),
  getRunRow: (d) => stepsOf(getRunRow(d, 'r1')),
  runsInStatus: (d) => stepsOf(runsInStatus(d, ['r1', 'r2'], 'interrupted')),
  getRun: (d) => stepsOf(getRun(d, 'r1')),
  runLineage: (d) => stepsOf(runLineage(d, 'r1')),
  getEvents: (d) => stepsOf(getEvents(d, 'r1', 3, 10)),
  getJournalPage: (d) => stepsOf(getJournalPage(d, 'r1', 3, 10)),
  allEvents: (d) => stepsOf(allEvents(d, 'r1')),
  allJournal: (d) => stepsOf(allJournal(d, 'r1')),
  eventsAfterCommit: (d) => stepsOf(eventsAfterCommit(d, 3, 10)),
  journalHead: (d) => stepsOf(journalHead(d)),
  enqueueCommand: (d) => stepsOf(enqueueCommand(d, { commandId: 'c1', runId: 'r1', kind: 'cancel', reason: 'stop' }, 1)),
  pendingCommands: (d) => stepsOf(pendingCommands(d, ['r1', 'r2'])),
  completeCommand: (d) => stepsOf(completeCommand(d, 'c1', { accepted: true }, 2)),
  getCommand: (d) => stepsOf(getCommand(d, 'c1')),
  runHost: (d) => stepsOf(runHost(d, 'r1')),
  takenRuns: (d) => stepsOf(takenRuns(d, new JournalBuilder('r1').start().events)),
  externalSession: (d) => stepsOf(externalSession(d, 's')),
  quietExternalSessions: (d) => stepsOf(quietExternalSessions(d, 10)),
  attemptTelemetry: (d) => stepsOf(attemptTelemetry(d, 'r1')),
  rememberPayload: (d) => stepsOf(rememberPayload(d, { digest: 'x', records: 1, receivedAt: 1, sessions: [] })),
  writeSessions: (d) => stepsOf(writeSessions(d, [session])),
  getSetting: (d) => stepsOf(getSetting(d, 'http.token')),
  setSetting: (d) => stepsOf(setSetting(d, 'http.token', 'v', 1)),
  'ensureSetting (new)': (d) => {
    let reads = 0;
    return stepsOf(
      ensureSetting(d, 'http.token', () => 'v', 1),
      (s) => (s.mode === 'run' ? { changes: 1 } : reads++ === 0 ? undefined : { value: 'v' }),
    );
  },
  replayRun: (d) => stepsOf(replayRun(d, 'r1'), empty),
  verifyAggregates: (d) => stepsOf(verifyAggregates(d)),
  resumePointForRun: (d) => {
    const steps: SqlStep[] = [];
    const answer: Answer = (s) => (s.mode === 'get' ? { status: 'failed' } : []);
    // An empty journal ends in not_resumable, after both statements were asked.
    expect(() => stepsOf(resumePointForRun(d, 'r1'), (s) => (steps.push(s), answer(s)))).toThrow('the journal of run r1 is gone');
    return steps;
  },
  ...Object.fromEntries(
    dimensions.map((by) => [
      `errorCounts (by ${by}, every filter, a window with edges)`,
      (d: Dialect) => stepsOf(errorCounts(d, { by, ...errorFilters, ...window })),
    ]),
  ),
  'errorCounts (handled only)': (d) => stepsOf(errorCounts(d, { by: 'code', disposition: 'handled', ...window })),
  errorSeries: (d) => stepsOf(errorSeries(d, { bucket: 'hour', stackBy: 'code', ...errorFilters, ...window })),
  'listErrors (cursor, every filter)': (d) =>
    stepsOf(listErrors(d, { ...errorFilters, fingerprint: 'fp', runId: 'r1', taskId: 't', ...window, cursor: encodeCursor(['errors', 1, 'r1', 2]) })),
  'errorGroups (all time, unhandled)': (d) => stepsOf(errorGroups(d, { category: 'tool', disposition: 'unhandled' })),
  'errorGroups (window, flow, handled)': (d) => stepsOf(errorGroups(d, { ...window, flow: 'a', disposition: 'handled', code: 'X', sort: 'last_seen' })),
  groupTrends: (d) => stepsOf(groupTrends(d, { fingerprints: ['fp', 'fq'], grain: 'hour', ...window, flow: 'a', disposition: 'unhandled' })),
  ...Object.fromEntries(
    FAILURE_DIMENSIONS.map((by) => [
      `failureCounts (by ${by}, every filter, a window with edges)`,
      (d: Dialect) => stepsOf(failureCounts(d, { by, ...errorFilters, ...window })),
    ]),
  ),
  'failureCounts (one run)': (d) => stepsOf(failureCounts(d, { by: 'code', runId: 'r1', ...window })),
  'listRuns (ending and any-occurrence error filters)': (d) =>
    stepsOf(listRuns(d, { code: 'X', category: 'runtime', anyCode: 'Y', anyCategory: 'agent', sort: '-ended' })),
  settleHistory: (d) =>
    stepsOf(settleHistory(d), (s) => (s.mode === 'all' && s.sql.startsWith('SELECT id FROM runs') ? [{ id: 'r1' }] : s.mode === 'run' ? { changes: 1 } : [])),
  groupBins: (d) => stepsOf(groupBins(d, { fingerprints: ['fp'], since: 0, until: HOUR, bins: 12, flow: 'a' })),
};

describe('store queries on PostgreSQL', () => {
  for (const [name, steps] of Object.entries(QUERIES)) {
    it(`${name}: asks PostgreSQL nothing SQLite-only`, () => {
      const asked = steps(Dialect.postgres);
      expect(asked.length).toBeGreaterThan(0);
      expect(sqliteOnly(asked)).toEqual([]);
    });
  }

  it('searches text with ILIKE over the columns and the task prompts, never through FTS5', () => {
    const sql = stepsOf(listRuns(Dialect.postgres, { text })).map((s) => s.sql);
    expect(sql).toHaveLength(1);
    expect(sql[0]).toContain("flow_name ILIKE ? ESCAPE '\\'");
    expect(sql[0]).toContain("t.name ILIKE ? ESCAPE '\\'");
  });

  it('filters occurrences by their disposition, a text column on both engines', () => {
    const [step] = stepsOf(listErrors(Dialect.postgres, { disposition: 'unhandled' }));
    expect(step?.sql).toContain('e.disposition = ?');
    expect(step?.params).toEqual(['unhandled', 51]);
    expect(() => stepsOf(listErrors(Dialect.postgres, { disposition: 'lost' as never }))).toThrow('disposition must be one of pending, handled, unhandled');
  });

  it('orders pending commands of one instant by the identity column', () => {
    expect(stepsOf(pendingCommands(Dialect.postgres, ['r1']))[0]?.sql).toMatch(/ORDER BY created_at, id$/);
  });
});

describe('store queries on SQLite keep their tuned text', () => {
  it('hints a dense status filter off its index and reads a rare text from the FTS5 index', () => {
    const answer: Answer = (s) => (s.mode === 'get' ? (s.sql.includes('MATCH') ? { n: 1 } : { hits: 9, total: 10 }) : []);
    const asked = stepsOf(listRuns(Dialect.sqlite, { status: 'failed', text }), answer);
    expect(asked.map((s) => s.sql.slice(0, 40))).toEqual([
      'SELECT SUM(CASE WHEN status IN (SELECT v',
      'SELECT (SELECT COUNT(*) FROM (SELECT row',
      'SELECT *, started_at AS sort_value FROM ',
    ]);
    const page = asked[2]?.sql ?? '';
    expect(page).toContain('+status IN (?)');
    expect(page).toContain('run_text MATCH ?');
    // The guard sees SQLite's own text for what it is (it is not blind).
    expect(sqliteOnly(asked).map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['json_each', 'FTS5 MATCH', 'rowid', 'index hint +column', 'unnamed subquery in FROM']),
    );
  });

  it('checks the rollups by disposition and the failure rollups against the failed runs', () => {
    const sql = stepsOf(verifyAggregates(Dialect.sqlite), empty)
      .map((s) => s.sql)
      .join('\n');
    expect(sql).toContain('code, flow, disposition, COUNT(*) AS n');
    expect(sql).toContain("SUM(CASE WHEN disposition = 'unhandled' THEN 1 ELSE 0 END) AS u");
    expect(sql).toContain("FROM runs WHERE status = 'failed' AND ending_code IS NOT NULL");
  });
});
