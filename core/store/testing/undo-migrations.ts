import Database from 'better-sqlite3';
import pg from 'pg';
import { MIGRATIONS } from '../migrations/index.js';

/**
 * Takes a migrated database back to an earlier version, so a test can open it again and watch a
 * migration's backfill: the tables, columns, indexes and triggers of each migration from 18 on, dropped
 * newest first, and the version set back. Only what these migrations add; an older target is refused.
 */

const isPostgres = (location: string): boolean => location.startsWith('postgres');

/** One statement batch on either engine; rows as the driver gives them. */
export async function query(location: string, sql: string): Promise<Record<string, unknown>[]> {
  if (!isPostgres(location)) {
    const db = new Database(location);
    try {
      if (sql.trimStart().toUpperCase().startsWith('SELECT')) return db.prepare(sql).all() as Record<string, unknown>[];
      db.exec(sql);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

const GROUP_COUNT_TABLES = 'error_group_count_hour, error_group_flow_count_hour, error_group_count_day, error_group_flow_count_day';
const FACT_TABLES = 'error_group_runs, error_group_flows, error_group_stats';
const FAILURE_TABLES = 'error_group_failure_hour, error_group_failure_day';
const triggers = (names: string): string =>
  names
    .split(', ')
    .map((name) => `DROP TRIGGER ${name};`)
    .join(' ');
const tables = (names: string): string =>
  names
    .split(', ')
    .map((name) => `DROP TABLE ${name};`)
    .join(' ');

const OUTCOME_TABLES = 'cost_rollups_hour, cost_rollups_day, run_outcomes_hour, run_outcomes_day';
const ADDED_COLUMNS = [
  ...['err_category', 'err_origin', 'err_code', 'err_fingerprint'].map((c) => `ALTER TABLE attempt_usage DROP COLUMN ${c};`),
  ...['fate_category', 'fate_origin', 'fate_code', 'fate_root_code', 'fate_fingerprint'].map((c) => `ALTER TABLE run_usage DROP COLUMN ${c};`),
].join(' ');

/** Migration 26 undone: the rules table of migration 15 again; a desktop-only rule has no place in it and goes. */
const ALERT_RULES_15 = `CREATE TABLE alert_rules_15 (id TEXT PRIMARY KEY, condition TEXT NOT NULL, threshold_ms INTEGER, threshold_count INTEGER,
  flow TEXT, code TEXT, category TEXT, webhook TEXT NOT NULL, format TEXT NOT NULL, throttle_ms INTEGER NOT NULL, created_at INTEGER NOT NULL, created_by TEXT NOT NULL);
  INSERT INTO alert_rules_15 SELECT id, condition, threshold_ms, threshold_count, flow, code, category, webhook, format, throttle_ms, created_at, created_by
    FROM alert_rules WHERE webhook IS NOT NULL;
  DROP TABLE alert_rules; ALTER TABLE alert_rules_15 RENAME TO alert_rules;`;

const UNDO: Record<number, { sqlite: string; postgres: string }> = {
  29: { sqlite: 'DROP INDEX errors_pending; DROP INDEX attempts_running;', postgres: 'DROP INDEX errors_pending;' },
  28: {
    sqlite: '',
    postgres: ['error_rollups', 'error_rollups_hour', 'error_rollups_day']
      .map((t) => `ALTER TABLE ${t} DROP CONSTRAINT ${t}_pkey, ADD PRIMARY KEY (bucket, category, origin, code, flow, disposition);`)
      .join(' '),
  },
  27: { sqlite: 'ALTER TABLE attempts DROP COLUMN telemetry_origin;', postgres: 'ALTER TABLE attempts DROP COLUMN telemetry_origin;' },
  26: {
    sqlite: ALERT_RULES_15,
    postgres:
      'DELETE FROM alert_rules WHERE webhook IS NULL; ALTER TABLE alert_rules DROP CONSTRAINT alert_rules_channel, DROP COLUMN desktop, ALTER COLUMN webhook SET NOT NULL;',
  },
  25: {
    sqlite:
      'DROP INDEX runs_approval_since; DROP INDEX runs_approval_waited; ALTER TABLE runs DROP COLUMN approval_since; ALTER TABLE runs DROP COLUMN approval_label; ALTER TABLE runs DROP COLUMN approval_wait_ms;',
    postgres:
      'DROP INDEX runs_approval_since, runs_approval_waited; ALTER TABLE runs DROP COLUMN approval_since, DROP COLUMN approval_label, DROP COLUMN approval_wait_ms;',
  },
  24: { sqlite: 'DROP TABLE agent_spawns;', postgres: 'DROP TABLE agent_spawns;' },
  23: {
    sqlite: 'ALTER TABLE runs DROP COLUMN flow_steps; ALTER TABLE runs DROP COLUMN flow_steps_most; ALTER TABLE tasks DROP COLUMN template;',
    postgres: 'ALTER TABLE runs DROP COLUMN flow_steps, DROP COLUMN flow_steps_most; ALTER TABLE tasks DROP COLUMN template;',
  },
  22: {
    sqlite: `${triggers('error_group_failures_insert, error_group_failures_delete, error_group_failures_update_out, error_group_failures_update_in')} ${tables(FAILURE_TABLES)} DROP INDEX errors_issue_endings;`,
    postgres: `DROP FUNCTION hivewatch_error_group_failures() CASCADE; DROP TABLE ${FAILURE_TABLES}; DROP INDEX errors_issue_endings;`,
  },
  21: {
    sqlite: `${triggers('run_outcomes_insert, run_outcomes_delete, run_outcomes_update_old, run_outcomes_update_new')} DROP INDEX runs_ended_wall; ${tables(OUTCOME_TABLES)} ${ADDED_COLUMNS}`,
    postgres: `DROP FUNCTION hivewatch_run_outcomes() CASCADE; DROP INDEX runs_ended_wall; DROP TABLE ${OUTCOME_TABLES}; ${ADDED_COLUMNS}`,
  },
  20: {
    sqlite: `${triggers(['hour', 'day'].flatMap((g) => ['insert', 'delete', 'update'].map((op) => `error_group_trend_${g}_counts_${op}`)).join(', '))} ${tables(GROUP_COUNT_TABLES)}`,
    postgres: `DROP FUNCTION hivewatch_error_group_trend_hour_counts() CASCADE; DROP FUNCTION hivewatch_error_group_trend_day_counts() CASCADE;
      DROP TABLE ${GROUP_COUNT_TABLES};`,
  },
  19: {
    sqlite: `${triggers('run_counts_hourly_insert, run_counts_hourly_delete, run_counts_hourly_update')} DROP TABLE run_counts_hourly; DROP INDEX runs_flow_by_name;`,
    postgres: 'DROP FUNCTION hivewatch_run_counts_hourly() CASCADE; DROP TABLE run_counts_hourly; DROP INDEX runs_flow_by_name;',
  },
  18: {
    sqlite: `${triggers('error_group_facts_insert, error_group_facts_delete, error_group_facts_update')} ${tables(FACT_TABLES)}`,
    postgres: `DROP FUNCTION hivewatch_error_group_facts() CASCADE; DROP TABLE ${FACT_TABLES};`,
  },
};

/** Undoes every migration after `version` (at least 17), newest first; opening the store applies them again. */
export async function undoMigrationsAfter(location: string, version: number): Promise<void> {
  const undone = MIGRATIONS.map((m) => m.version)
    .filter((v) => v > version)
    .reverse();
  const missing = undone.filter((v) => UNDO[v] === undefined);
  if (missing.length > 0) throw new Error(`cannot undo migration ${missing.join(', ')}`);
  const steps = undone.map((v) => (isPostgres(location) ? UNDO[v]!.postgres : UNDO[v]!.sqlite));
  if (isPostgres(location)) steps.push(`DELETE FROM schema_version WHERE version > ${version}`);
  else steps.push(`PRAGMA user_version = ${version}`);
  await query(location, steps.join('\n'));
}
