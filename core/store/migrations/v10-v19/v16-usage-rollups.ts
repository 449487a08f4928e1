import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 16 (what agent work costs): the tokens and cost agents report per
 * attempt (`attemptSucceeded` / `attemptFailed` `usage`), and their sums, kept by the journal
 * writers of both engines (usage-rollups.ts) in the batch's transaction:
 *
 * - `attempt_usage`: one row per attempt that reported usage, with its run's flow, its end wall
 *   time, whether it failed and whether it counts in the flow totals (`counted` is 0 for a
 *   session whose telemetry a Hivewatch attempt produced: that attempt's own result counts it,
 *   docs/presets.md "Tokens and cost"). It answers a time range's partial days at the edges.
 * - `run_usage`: per run, the tokens by kind, the cost, what failed attempts cost, and how many
 *   attempts reported tokens without a cost (the run's cost is then unknown in part); and, for an
 *   external session a Hivewatch attempt ran, that attempt.
 * - `usage_days`: per flow and UTC day, the same sums over counted attempts: the Flows and Errors
 *   screens total a range from whole days here.
 *
 * No backfill: no journal written before this version carries `usage` (the field is new with
 * it), so every table starts empty and is exact.
 */
function usageRollupsSql(dialect: Dialect): string {
  const pg = dialect === Dialect.postgres;
  const text = pg ? 'TEXT COLLATE "C"' : 'TEXT';
  const int = pg ? 'BIGINT' : 'INTEGER';
  const real = pg ? 'DOUBLE PRECISION' : 'REAL';
  const withoutRowid = pg ? '' : ' WITHOUT ROWID';
  const sums = `
      attempts ${int} NOT NULL DEFAULT 0, failed_attempts ${int} NOT NULL DEFAULT 0,
      input_tokens ${int} NOT NULL DEFAULT 0, output_tokens ${int} NOT NULL DEFAULT 0,
      cache_read_tokens ${int} NOT NULL DEFAULT 0, cache_write_tokens ${int} NOT NULL DEFAULT 0,
      cost_usd ${real} NOT NULL DEFAULT 0, failed_cost_usd ${real} NOT NULL DEFAULT 0,
      unknown_cost_attempts ${int} NOT NULL DEFAULT 0`;
  return `
    CREATE TABLE attempt_usage (
      run_id ${text} NOT NULL, task_id ${text} NOT NULL, attempt ${int} NOT NULL,
      wall ${int} NOT NULL, flow ${text} NOT NULL, failed ${int} NOT NULL, counted ${int} NOT NULL,
      input_tokens ${int}, output_tokens ${int}, cache_read_tokens ${int}, cache_write_tokens ${int},
      cost_usd ${real}, source ${text} NOT NULL,
      PRIMARY KEY (run_id, task_id, attempt)
    )${withoutRowid};
    CREATE INDEX attempt_usage_wall ON attempt_usage (wall, flow);
    CREATE TABLE run_usage (
      run_id ${text} PRIMARY KEY,
      parent_run_id ${text}, parent_task_id ${text}, parent_attempt ${int},${sums}
    )${withoutRowid};
    CREATE TABLE usage_days (
      flow ${text} NOT NULL, day ${int} NOT NULL,${sums},
      PRIMARY KEY (flow, day)
    )${withoutRowid};
    CREATE INDEX usage_days_day ON usage_days (day);
  `;
}

function usageRollups(db: Database.Database): void {
  db.exec(usageRollupsSql(Dialect.sqlite));
}

export const migration: Migration = {
  version: 16,
  name: 'tokens and cost: attempt usage, run totals, flow totals per day',
  sqlite: usageRollups,
  // On PostgreSQL: in PostgreSQL's types; nothing to backfill.
  postgres: async (client) => {
    await client.query(usageRollupsSql(Dialect.postgres));
  },
};
