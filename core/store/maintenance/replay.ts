import { addGroupContribution, type GroupDelta } from '../rollups/batch-aggregates.js';
import { FAILURE_KEY, FAILURE_ROLLUP_TABLE, FailureDeltas } from '../rollups/failure-rollups.js';
import { verifyIssueFailures } from '../issues/issue-periods.js';
import { projectJournal } from '../projection/projections.js';
import { allJournal } from '../queries/events.js';
import { all, get, type Dialect, type Query } from '../queries/plan.js';
import {
  addErrorContribution,
  emptyGrainDeltas,
  GRAINS,
  GRAIN_MS,
  GROUP_COUNT_TABLE,
  GROUP_FLOW_COUNT_TABLE,
  GROUP_TREND_GRAINS,
  GROUP_TREND_TABLE,
  groupTrendKey,
  parseGroupTrendKey,
  parseRollupKey,
  ROLLUP_TABLE,
  rollupKeyString,
  type Grain,
  type GroupTrendGrain,
} from '../rollups/rollups.js';
import { rowFromDb } from '../projection/row-codec.js';
import { ATTEMPTS, CHECKPOINTS, ERRORS, RUNS, STEPS, TASKS, type TableSpec } from '../projection/table-specs.js';
import { TERMINAL_RUN_STATUSES } from '../../common/run-statuses.js';

/**
 * Replay parity (rule 15): rebuild every projection row of a run from its journal with
 * the live reducers, in memory, and compare with what is stored (error dispositions and the
 * run's ending error included). Rollups and groups mix runs, so for them the check is that the
 * stored count covers this run's contribution; the store-wide `verifyAggregates` checks them
 * exactly against the errors table, and the failure rollups against the runs.
 */

export interface ReplayReport {
  runId: string;
  ok: boolean;
  events: number;
  /** Readable differences, e.g. `tasks[2:0].status: stored "failed", replayed "succeeded"`. */
  diffs: string[];
}

const show = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compareRows<R>(spec: TableSpec<R>, label: (row: R) => string, stored: readonly R[], replayed: readonly R[], diffs: string[]): void {
  const keyOf = (row: R): string => spec.key.map((k) => String(row[k])).join('\u0000');
  const storedByKey = new Map(stored.map((r) => [keyOf(r), r]));
  const replayedByKey = new Map(replayed.map((r) => [keyOf(r), r]));
  for (const [key, want] of replayedByKey) {
    const have = storedByKey.get(key);
    if (!have) {
      diffs.push(`${label(want)}: stored row missing, replayed ${show(want)}`);
      continue;
    }
    for (const [column] of spec.columns) {
      if (!sameValue(have[column], want[column])) {
        diffs.push(`${label(want)}.${column}: stored ${show(have[column])}, replayed ${show(want[column])}`);
      }
    }
  }
  for (const [key, have] of storedByKey) {
    if (!replayedByKey.has(key)) diffs.push(`${label(have)}: stored row the journal does not produce: ${show(have)}`);
  }
}

export function* replayRun(dialect: Dialect, runId: string): Query<ReplayReport> {
  const { events, walls } = yield* allJournal(dialect, runId);
  const diffs: string[] = [];
  const { state, emitted } = projectJournal(events, walls);
  function* load<R>(spec: TableSpec<R>, sql: string): Query<R[]> {
    return (yield* all<Record<string, unknown>>(sql, [runId])).map((r) => rowFromDb<R>(spec, r));
  }

  compareRows(RUNS, () => 'run', yield* load(RUNS, 'SELECT * FROM runs WHERE id = ?'), state ? [state.run] : [], diffs);
  compareRows(STEPS, (r) => `steps[${r.step}]`, yield* load(STEPS, 'SELECT * FROM steps WHERE run_id = ?'), state ? [...state.steps.values()] : [], diffs);
  compareRows(TASKS, (r) => `tasks[${r.taskId}]`, yield* load(TASKS, 'SELECT * FROM tasks WHERE run_id = ?'), state ? [...state.tasks.values()] : [], diffs);
  compareRows(
    ATTEMPTS,
    (r) => `attempts[${r.taskId}#${r.attempt}]`,
    yield* load(ATTEMPTS, 'SELECT * FROM attempts WHERE run_id = ?'),
    state ? [...state.attempts.values()] : [],
    diffs,
  );
  compareRows(ERRORS, (r) => `errors[seq ${r.seq}]`, yield* load(ERRORS, 'SELECT * FROM errors WHERE run_id = ?'), emitted.errors, diffs);
  const checkpoints = new Map(emitted.checkpoints.map((c) => [c.step, c]));
  compareRows(
    CHECKPOINTS,
    (r) => `checkpoints[${r.step}]`,
    yield* load(CHECKPOINTS, 'SELECT * FROM checkpoints WHERE run_id = ?'),
    [...checkpoints.values()],
    diffs,
  );

  const deltas = emptyGrainDeltas();
  const groups = new Map<string, GroupDelta>();
  for (const error of emitted.errors) {
    addErrorContribution(deltas, error);
    addGroupContribution(groups, error);
  }
  for (const grain of GRAINS) {
    const sql = `SELECT count FROM ${ROLLUP_TABLE[grain]} WHERE bucket = ? AND category = ? AND origin = ? AND code = ? AND flow = ? AND disposition = ?`;
    for (const [text, contribution] of deltas[grain]) {
      const k = parseRollupKey(text);
      const stored = (yield* get<{ count: number }>(sql, [k.bucket, k.category, k.origin, k.code, k.flow, k.disposition]))?.count ?? 0;
      if (stored < contribution) {
        diffs.push(
          `${ROLLUP_TABLE[grain]}[${new Date(k.bucket).toISOString()} ${k.category}/${k.origin}/${k.code}/${k.flow}/${k.disposition}].count: stored ${stored}, below this run's ${contribution}`,
        );
      }
    }
  }
  for (const grain of GROUP_TREND_GRAINS) {
    const sql = `SELECT count FROM ${GROUP_TREND_TABLE[grain]} WHERE bucket = ? AND fingerprint = ? AND flow = ? AND disposition = ?`;
    for (const [text, contribution] of grain === 'hour' ? deltas.trendHour : deltas.trendDay) {
      const k = parseGroupTrendKey(text);
      const stored = (yield* get<{ count: number }>(sql, [k.bucket, k.fingerprint, k.flow, k.disposition]))?.count ?? 0;
      if (stored < contribution) {
        diffs.push(
          `${GROUP_TREND_TABLE[grain]}[${new Date(k.bucket).toISOString()} ${k.fingerprint}/${k.flow}].count: stored ${stored}, below this run's ${contribution}`,
        );
      }
    }
  }
  for (const g of groups.values()) {
    const stored = yield* get<{ count: number; unhandled: number; template: string; first_seen: number; last_seen: number }>(
      'SELECT count, unhandled, template, first_seen, last_seen FROM error_groups WHERE fingerprint = ?',
      [g.fingerprint],
    );
    if (!stored) diffs.push(`error_groups[${g.fingerprint}]: stored row missing (${g.count} errors of this run)`);
    else {
      if (stored.count < g.count) diffs.push(`error_groups[${g.fingerprint}].count: stored ${stored.count}, below this run's ${g.count}`);
      if (stored.unhandled < g.unhandled) diffs.push(`error_groups[${g.fingerprint}].unhandled: stored ${stored.unhandled}, below this run's ${g.unhandled}`);
      if (stored.template !== g.template) diffs.push(`error_groups[${g.fingerprint}].template: stored ${show(stored.template)}, replayed ${show(g.template)}`);
      if (stored.first_seen > g.firstSeen || stored.last_seen < g.lastSeen) {
        diffs.push(
          `error_groups[${g.fingerprint}]: stored seen [${stored.first_seen}, ${stored.last_seen}] does not cover this run's [${g.firstSeen}, ${g.lastSeen}]`,
        );
      }
    }
  }
  yield* checkFailureCoverage(emitted.failures, diffs);
  return { runId, ok: diffs.length === 0, events: events.length, diffs };
}

/** The failure rollups hold at least the failure this run's journal counts (one when it ended failed). */
function* checkFailureCoverage(failures: ReturnType<typeof projectJournal>['emitted']['failures'], diffs: string[]): Query<void> {
  const deltas = new FailureDeltas();
  for (const { failure, sign } of failures) deltas.add(failure, sign);
  for (const grain of GRAINS) {
    const table = FAILURE_ROLLUP_TABLE[grain];
    const sql = `SELECT count FROM ${table} WHERE ${FAILURE_KEY.map((k) => `${k} = ?`).join(' AND ')}`;
    for (const e of deltas.entries(grain)) {
      if (e.count <= 0) continue;
      const stored = (yield* get<{ count: number }>(sql, [e.bucket, e.category, e.origin, e.code, e.rootCode, e.flow]))?.count ?? 0;
      if (stored < e.count) {
        diffs.push(
          `${table}[${new Date(e.bucket).toISOString()} ${e.category}/${e.origin}/${e.code}/${e.rootCode}/${e.flow}].count: stored ${stored}, below this run's ${e.count}`,
        );
      }
    }
  }
}

export interface AggregateReport {
  ok: boolean;
  diffs: string[];
}

/** Store-wide: every rollup grain and every error group equals what the errors table says. */
export function* verifyAggregates(_dialect: Dialect): Query<AggregateReport> {
  const diffs: string[] = [];
  for (const grain of GRAINS) {
    const size = GRAIN_MS[grain];
    const expected = new Map<string, number>();
    const direct = `SELECT ts - (((ts % ${size}) + ${size}) % ${size}) AS bucket, category, origin, code, flow, disposition, COUNT(*) AS n
       FROM errors GROUP BY 1, 2, 3, 4, 5, 6`;
    type Keyed = { bucket: number; category: string; origin: string; code: string; flow: string; disposition: string };
    for (const r of yield* all<Keyed & { n: number }>(direct)) expected.set(rollupKeyString(r), r.n);
    const stored = yield* all<Keyed & { count: number }>(`SELECT bucket, category, origin, code, flow, disposition, count FROM ${ROLLUP_TABLE[grain]}`);
    const label = (k: Keyed): string =>
      `${ROLLUP_TABLE[grain]}[${new Date(k.bucket).toISOString()} ${k.category}/${k.origin}/${k.code}/${k.flow}/${k.disposition}]`;
    for (const r of stored) {
      const key = rollupKeyString(r);
      const want = expected.get(key) ?? 0;
      if (want !== r.count) diffs.push(`${label(r)}.count: stored ${r.count}, errors ${want}`);
      expected.delete(key);
    }
    for (const [key, n] of expected) diffs.push(`${label(parseRollupKey(key))}: stored row missing, errors ${n}`);
  }
  for (const grain of GROUP_TREND_GRAINS) {
    const size = GRAIN_MS[grain];
    const expected = new Map<string, number>();
    const direct = `SELECT ts - (((ts % ${size}) + ${size}) % ${size}) AS bucket, fingerprint, flow, disposition, COUNT(*) AS n
       FROM errors GROUP BY 1, 2, 3, 4`;
    type Keyed = { bucket: number; fingerprint: string; flow: string; disposition: string };
    for (const r of yield* all<Keyed & { n: number }>(direct)) expected.set(groupTrendKey(r), r.n);
    const stored = yield* all<Keyed & { count: number }>(`SELECT bucket, fingerprint, flow, disposition, count FROM ${GROUP_TREND_TABLE[grain]}`);
    for (const r of stored) {
      const key = groupTrendKey(r);
      const want = expected.get(key) ?? 0;
      if (want !== r.count)
        diffs.push(`${GROUP_TREND_TABLE[grain]}[${new Date(r.bucket).toISOString()} ${r.fingerprint}/${r.flow}].count: stored ${r.count}, errors ${want}`);
      expected.delete(key);
    }
    for (const [key, n] of expected) {
      const k = parseGroupTrendKey(key);
      diffs.push(`${GROUP_TREND_TABLE[grain]}[${new Date(k.bucket).toISOString()} ${k.fingerprint}/${k.flow}]: stored row missing, errors ${n}`);
    }
  }
  const members = `SELECT fingerprint, COUNT(*) AS n, SUM(CASE WHEN disposition = 'unhandled' THEN 1 ELSE 0 END) AS u, MIN(ts) AS lo, MAX(ts) AS hi FROM errors GROUP BY fingerprint`;
  const groups = `SELECT g.fingerprint, g.count, g.unhandled, g.first_seen, g.last_seen, x.n, x.u, x.lo, x.hi
     FROM error_groups AS g
     LEFT JOIN (${members}) AS x ON x.fingerprint = g.fingerprint
     UNION ALL
     SELECT x.fingerprint, NULL, NULL, NULL, NULL, x.n, x.u, x.lo, x.hi
     FROM (${members}) AS x
     WHERE NOT EXISTS (SELECT 1 FROM error_groups AS g WHERE g.fingerprint = x.fingerprint)`;
  type GroupCheck = {
    fingerprint: string;
    count: number | null;
    unhandled: number | null;
    first_seen: number | null;
    last_seen: number | null;
    n: number | null;
    u: number | null;
    lo: number | null;
    hi: number | null;
  };
  for (const r of yield* all<GroupCheck>(groups)) {
    if (r.count !== (r.n ?? 0) || (r.unhandled ?? 0) !== (r.u ?? 0) || (r.n !== null && (r.first_seen !== r.lo || r.last_seen !== r.hi))) {
      diffs.push(
        `error_groups[${r.fingerprint}]: stored count ${show(r.count)} unhandled ${show(r.unhandled)} seen [${show(r.first_seen)}, ${show(r.last_seen)}], ` +
          `errors count ${show(r.n ?? 0)} unhandled ${show(r.u ?? 0)} seen [${show(r.lo)}, ${show(r.hi)}]`,
      );
    }
  }
  for (const grain of GRAINS) yield* verifyFailures(grain, diffs);
  for (const grain of GROUP_TREND_GRAINS) yield* verifyGroupCounts(grain, diffs);
  for (const grain of GROUP_TREND_GRAINS) yield* verifyIssueFailures(_dialect, grain, GRAIN_MS[grain], diffs);
  yield* verifySettled(diffs);
  return { ok: diffs.length === 0, diffs };
}

/** A failure rollup grain equals counting the runs that ended failed, by their end wall time. */
function* verifyFailures(grain: Grain, diffs: string[]): Query<void> {
  const size = GRAIN_MS[grain];
  const table = FAILURE_ROLLUP_TABLE[grain];
  type Keyed = { bucket: number; category: string; origin: string; code: string; root_code: string; flow: string };
  const keyOf = (k: Keyed): string => [k.bucket, k.category, k.origin, k.code, k.root_code, k.flow].join('\u0000');
  const label = (k: Keyed): string => `${table}[${new Date(k.bucket).toISOString()} ${k.category}/${k.origin}/${k.code}/${k.root_code}/${k.flow}]`;
  const expected = new Map<string, Keyed & { n: number }>();
  const direct = `SELECT ended_wall - (((ended_wall % ${size}) + ${size}) % ${size}) AS bucket, COALESCE(ending_category, '') AS category,
      COALESCE(ending_origin, '') AS origin, ending_code AS code, COALESCE(ending_root_code, ending_code) AS root_code, flow, COUNT(*) AS n
    FROM runs WHERE status = 'failed' AND ending_code IS NOT NULL AND ended_wall IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`;
  for (const r of yield* all<Keyed & { n: number }>(direct)) expected.set(keyOf(r), r);
  for (const r of yield* all<Keyed & { count: number }>(`SELECT ${FAILURE_KEY.join(', ')}, count FROM ${table}`)) {
    const key = keyOf(r);
    const want = expected.get(key)?.n ?? 0;
    if (want !== r.count) diffs.push(`${label(r)}.count: stored ${r.count}, failed runs ${want}`);
    expected.delete(key);
  }
  for (const r of expected.values()) diffs.push(`${label(r)}: stored row missing, failed runs ${r.n}`);
}

/**
 * The group count tables (migration 20, kept by triggers) equal the trend table's sums over the
 * keys they drop, and hold no row of count 0. The trend table is checked against the errors above.
 */
function* verifyGroupCounts(grain: GroupTrendGrain, diffs: string[]): Query<void> {
  for (const [table, key] of [
    [GROUP_COUNT_TABLE[grain], 'fingerprint, bucket'],
    [GROUP_FLOW_COUNT_TABLE[grain], 'flow, fingerprint, bucket'],
  ] as const) {
    const sql = `SELECT ${key}, SUM(stored) AS stored, SUM(trend) AS trend, MIN(stored_zero) AS stored_zero FROM (
        SELECT ${key}, count AS stored, 0 AS trend, CASE WHEN count = 0 THEN 0 ELSE 1 END AS stored_zero FROM ${table}
        UNION ALL SELECT ${key}, 0, count, 1 FROM ${GROUP_TREND_TABLE[grain]}
      ) AS x GROUP BY ${key} HAVING SUM(stored) <> SUM(trend) OR MIN(stored_zero) = 0 ORDER BY ${key} LIMIT 100`;
    type Row = { flow?: string; fingerprint: string; bucket: number; stored: number; trend: number };
    for (const r of yield* all<Row>(sql)) {
      const where = `${new Date(Number(r.bucket)).toISOString()} ${r.flow === undefined ? '' : `${r.flow}/`}${r.fingerprint}`;
      diffs.push(`${table}[${where}].count: stored ${Number(r.stored)}${Number(r.stored) === 0 ? ' (a row of 0)' : ''}, trend rows ${Number(r.trend)}`);
    }
  }
}

/** Every occurrence of an ended run is settled, and every failed run has its ending error. */
function* verifySettled(diffs: string[]): Query<void> {
  const ended = TERMINAL_RUN_STATUSES.map(() => '?').join(', ');
  const pending = yield* all<{ run_id: string; seq: number }>(
    `SELECT e.run_id, e.seq FROM errors AS e JOIN runs AS r ON r.id = e.run_id
     WHERE e.disposition = 'pending' AND r.status IN (${ended}) ORDER BY e.run_id, e.seq LIMIT 100`,
    [...TERMINAL_RUN_STATUSES],
  );
  for (const p of pending) diffs.push(`errors[${p.run_id} seq ${p.seq}].disposition: pending, but its run ended`);
  const unexplained = yield* all<{ id: string }>("SELECT id FROM runs WHERE status = 'failed' AND ending_code IS NULL ORDER BY id LIMIT 100");
  for (const r of unexplained) diffs.push(`runs[${r.id}].ending_code: null, but the run failed`);
}
