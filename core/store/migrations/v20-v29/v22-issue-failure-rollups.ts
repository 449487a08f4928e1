import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import { GRAIN_MS, GROUP_TREND_GRAINS, type GroupTrendGrain } from '../../rollups/rollups.js';
import type { Migration } from '../migration.js';

/**
 * Version 22: each issue's failures per hour and day, so "failures in the period" and its change
 * against the period before are read from rollups like the events are (the group count tables of
 * migration 20), never from the errors.
 *
 * `error_group_failure_{hour,day}`: (fingerprint, bucket, flow) → the occurrences that are their
 * run's ending error (`errors.ending = 1`: the run ended failed because of this issue, one per
 * failed run), bucketed by the occurrence's time. The flow is a key so a flow filter reads its
 * own rows. Triggers on `errors` keep them (an insert, a delete, and an update that changes an
 * occurrence's ending, time, fingerprint or flow: a run's end settles its occurrences by
 * rewriting them), so ingest, settling, prune and the bench's bulk seed keep them without
 * knowing. A row that falls to 0 is deleted. Backfilled here from the errors.
 *
 * `errors_issue_endings`: the ending occurrences by issue (a partial index: one entry per failed
 * run), so an issue's failed runs are read without walking its every occurrence (240,000 of one
 * issue at 10,000,000 errors). The PostgreSQL part below runs
 * `issueFailureRollupsSql(Dialect.postgres)`.
 */

export const ISSUE_FAILURE_TABLE: Record<GroupTrendGrain, string> = {
  hour: 'error_group_failure_hour',
  day: 'error_group_failure_day',
};

type Side = 'old' | 'new';

const bucketOf = (row: string, grain: GroupTrendGrain): string => {
  const size = GRAIN_MS[grain];
  return `${row}.ts - (((${row}.ts % ${size}) + ${size}) % ${size})`;
};

function tableSql(dialect: Dialect, grain: GroupTrendGrain): string {
  const pg = dialect === Dialect.postgres;
  const [int, text] = pg ? ['BIGINT', 'TEXT COLLATE "C"'] : ['INTEGER', 'TEXT'];
  return `CREATE TABLE ${ISSUE_FAILURE_TABLE[grain]} (
    fingerprint ${text} NOT NULL, bucket ${int} NOT NULL, flow ${text} NOT NULL, count ${int} NOT NULL,
    PRIMARY KEY (fingerprint, bucket, flow)
  )${pg ? '' : ' WITHOUT ROWID'}`;
}

function backfillSql(grain: GroupTrendGrain): string {
  const size = GRAIN_MS[grain];
  return `INSERT INTO ${ISSUE_FAILURE_TABLE[grain]} (fingerprint, bucket, flow, count)
    SELECT fingerprint, ts - (((ts % ${size}) + ${size}) % ${size}), flow, COUNT(*) FROM errors WHERE ending = 1 GROUP BY 1, 2, 3`;
}

/** Adds one ending occurrence (its old or new side) to a grain's table, then drops the row if it became 0. */
function bumpSql(dialect: Dialect, grain: GroupTrendGrain, side: Side, sign: 1 | -1): string {
  const row = dialect === Dialect.postgres ? side.toUpperCase() : side;
  const table = ISSUE_FAILURE_TABLE[grain];
  const bucket = bucketOf(row, grain);
  // SQLite refuses a qualified column in a trigger's upsert; plpgsql needs one (a bare `count`
  // would be ambiguous with the excluded row's).
  const stored = dialect === Dialect.postgres ? `${table}.count` : 'count';
  return `INSERT INTO ${table} (fingerprint, bucket, flow, count) VALUES (${row}.fingerprint, ${bucket}, ${row}.flow, ${sign})
      ON CONFLICT (fingerprint, bucket, flow) DO UPDATE SET count = ${stored} + excluded.count;
    DELETE FROM ${table} WHERE fingerprint = ${row}.fingerprint AND bucket = ${bucket} AND flow = ${row}.flow AND count = 0;`;
}

const bumps = (dialect: Dialect, side: Side, sign: 1 | -1): string => GROUP_TREND_GRAINS.map((grain) => bumpSql(dialect, grain, side, sign)).join('\n');

const CHANGED = (old: string, now: string, distinct: string): string =>
  `${old}.ending ${distinct} ${now}.ending OR ${old}.ts ${distinct} ${now}.ts OR ${old}.fingerprint ${distinct} ${now}.fingerprint OR ${old}.flow ${distinct} ${now}.flow`;

function sqliteTriggers(): string {
  return `
  CREATE TRIGGER error_group_failures_insert AFTER INSERT ON errors WHEN new.ending = 1 BEGIN
    ${bumps(Dialect.sqlite, 'new', 1)}
  END;
  CREATE TRIGGER error_group_failures_delete AFTER DELETE ON errors WHEN old.ending = 1 BEGIN
    ${bumps(Dialect.sqlite, 'old', -1)}
  END;
  CREATE TRIGGER error_group_failures_update_out AFTER UPDATE OF ending, ts, fingerprint, flow ON errors
    WHEN old.ending = 1 AND (${CHANGED('old', 'new', 'IS NOT')}) BEGIN
    ${bumps(Dialect.sqlite, 'old', -1)}
  END;
  CREATE TRIGGER error_group_failures_update_in AFTER UPDATE OF ending, ts, fingerprint, flow ON errors
    WHEN new.ending = 1 AND (${CHANGED('old', 'new', 'IS NOT')}) BEGIN
    ${bumps(Dialect.sqlite, 'new', 1)}
  END;`;
}

function postgresTriggers(): string {
  return `
  CREATE FUNCTION hivewatch_error_group_failures() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.ending = 1 THEN
      ${bumps(Dialect.postgres, 'old', -1)}
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.ending = 1 THEN
      ${bumps(Dialect.postgres, 'new', 1)}
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER error_group_failures_insert AFTER INSERT ON errors FOR EACH ROW WHEN (NEW.ending = 1)
    EXECUTE FUNCTION hivewatch_error_group_failures();
  CREATE TRIGGER error_group_failures_delete AFTER DELETE ON errors FOR EACH ROW WHEN (OLD.ending = 1)
    EXECUTE FUNCTION hivewatch_error_group_failures();
  CREATE TRIGGER error_group_failures_update AFTER UPDATE OF ending, ts, fingerprint, flow ON errors FOR EACH ROW
    WHEN ((OLD.ending = 1 OR NEW.ending = 1) AND (${CHANGED('OLD', 'NEW', 'IS DISTINCT FROM')}))
    EXECUTE FUNCTION hivewatch_error_group_failures();`;
}

/** Migration 22's statements for one engine, in order. */
function issueFailureRollupsSql(dialect: Dialect): string[] {
  return [
    ...GROUP_TREND_GRAINS.flatMap((grain) => [tableSql(dialect, grain), backfillSql(grain)]),
    dialect === Dialect.postgres ? postgresTriggers() : sqliteTriggers(),
    'CREATE INDEX errors_issue_endings ON errors (fingerprint, run_id) WHERE ending = 1',
  ];
}

function issueFailureRollups(db: Database.Database): void {
  for (const sql of issueFailureRollupsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 22,
  name: "issue failures per hour and day: each issue's failures in a period from rollups",
  sqlite: issueFailureRollups,
  // On PostgreSQL: the same tables and backfill, one plpgsql trigger function.
  postgres: async (client) => {
    for (const sql of issueFailureRollupsSql(Dialect.postgres)) await client.query(sql);
  },
};
