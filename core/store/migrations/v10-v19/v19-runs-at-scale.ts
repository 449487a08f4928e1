import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 19 (the Runs screen at a million runs): what the run list's counts
 * and its flow sort need so that every answer is bounded work, whatever the history's size.
 *
 * - `run_counts_hourly`: runs per (hour of their start, flow, status), kept by triggers on
 *   `runs` like `run_counts` (migration 7). The counts of a start-time window ("Started within
 *   7 days") add the whole hours inside the window from here and count only the runs of its
 *   partial first hour through `runs_started_counts`: at a million runs over 30 days a 7-day
 *   window read 230,000 index entries, now it reads at most an hour's runs and a few thousand
 *   rows of this table. The hour is `started_at / 3600000` (integer division on both engines).
 * - `runs_flow_by_name`: a flow filter sorted by flow name. The flow filter is dense (a fifth of
 *   the runs), so the list walked the flow-name index and skipped every run of the flows that
 *   sort before it (400,000 rows at 1M); with the flow file in front, one flow is one range.
 *
 * Backfilled here (one GROUP BY over the runs). The PostgreSQL part below
 * runs the same table, index and backfill, one plpgsql trigger function.
 */

export const HOUR_MS = 3_600_000;

// PostgreSQL's text columns compare bytewise as SQLite's do (migration 12).
const TABLE_SQL = (dialect: Dialect): string => {
  const pg = dialect === Dialect.postgres;
  const [int, text] = pg ? ['BIGINT', 'TEXT COLLATE "C"'] : ['INTEGER', 'TEXT'];
  return `CREATE TABLE run_counts_hourly (
  hour ${int} NOT NULL, flow ${text} NOT NULL, status ${text} NOT NULL, count ${int} NOT NULL,
  PRIMARY KEY (hour, flow, status)
)${pg ? '' : ' WITHOUT ROWID'}`;
};

const BACKFILL_SQL = `INSERT INTO run_counts_hourly (hour, flow, status, count)
  SELECT started_at / ${HOUR_MS}, flow, status, COUNT(*) FROM runs GROUP BY started_at / ${HOUR_MS}, flow, status`;

const INDEX_SQL = 'CREATE INDEX runs_flow_by_name ON runs (flow, flow_name, (-started_at), id)';

const sqliteBump = (run: 'old' | 'new', by: number): string =>
  `INSERT INTO run_counts_hourly (hour, flow, status, count) VALUES (${run}.started_at / ${HOUR_MS}, ${run}.flow, ${run}.status, ${by})
     ON CONFLICT (hour, flow, status) DO UPDATE SET count = count + ${by};`;

const SQLITE_TRIGGERS = `
  CREATE TRIGGER run_counts_hourly_insert AFTER INSERT ON runs BEGIN
    ${sqliteBump('new', 1)}
  END;
  CREATE TRIGGER run_counts_hourly_delete AFTER DELETE ON runs BEGIN
    ${sqliteBump('old', -1)}
  END;
  CREATE TRIGGER run_counts_hourly_update AFTER UPDATE OF flow, status, started_at ON runs
    WHEN old.flow IS NOT new.flow OR old.status IS NOT new.status OR old.started_at IS NOT new.started_at BEGIN
    ${sqliteBump('old', -1)}
    ${sqliteBump('new', 1)}
  END;`;

const POSTGRES_TRIGGERS = `
  CREATE FUNCTION hivewatch_run_counts_hourly() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      INSERT INTO run_counts_hourly (hour, flow, status, count) VALUES (OLD.started_at / ${HOUR_MS}, OLD.flow, OLD.status, -1)
        ON CONFLICT (hour, flow, status) DO UPDATE SET count = run_counts_hourly.count - 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO run_counts_hourly (hour, flow, status, count) VALUES (NEW.started_at / ${HOUR_MS}, NEW.flow, NEW.status, 1)
        ON CONFLICT (hour, flow, status) DO UPDATE SET count = run_counts_hourly.count + 1;
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER run_counts_hourly_insert AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_counts_hourly();
  CREATE TRIGGER run_counts_hourly_delete AFTER DELETE ON runs FOR EACH ROW EXECUTE FUNCTION hivewatch_run_counts_hourly();
  CREATE TRIGGER run_counts_hourly_update AFTER UPDATE OF flow, status, started_at ON runs FOR EACH ROW
    WHEN (OLD.flow IS DISTINCT FROM NEW.flow OR OLD.status IS DISTINCT FROM NEW.status OR OLD.started_at IS DISTINCT FROM NEW.started_at)
    EXECUTE FUNCTION hivewatch_run_counts_hourly();`;

/** Migration 19's statements for one engine, in order. */
function runsAtScaleSql(dialect: Dialect): string[] {
  return [TABLE_SQL(dialect), BACKFILL_SQL, INDEX_SQL, dialect === Dialect.postgres ? POSTGRES_TRIGGERS : SQLITE_TRIGGERS];
}

function runsAtScale(db: Database.Database): void {
  for (const sql of runsAtScaleSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 19,
  name: 'runs at scale: run counts per hour, flow and status; flow list sorted by name',
  sqlite: runsAtScale,
  // On PostgreSQL: in its types, with the same backfill.
  postgres: async (client) => {
    for (const sql of runsAtScaleSql(Dialect.postgres)) await client.query(sql);
  },
};
