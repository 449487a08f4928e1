import type Database from 'better-sqlite3';
import { FAILURE_ROLLUP_TABLE } from '../../rollups/failure-rollups.js';
import { Dialect, runSync } from '../../queries/plan.js';
import { StatementCache } from '../../queries/sql.js';
import { GROUP_TREND_TABLE, ROLLUP_TABLE } from '../../rollups/rollups.js';
import { settleHistory } from '../../projection/settle-history.js';
import { runAsync } from '../../queries/plan.js';
import { executorOf } from '../../postgres/connection/execution.js';
import type { Migration } from '../migration.js';

/**
 * Version 10 (the failure model: docs/semantics.md F1–F4): error dispositions, the
 * run's ending error, failure rollups, and what a sibling-cancelled attempt reported.
 *
 * - `errors.disposition` (pending | handled | unhandled) and `errors.ending` (the head of its
 *   failed run's chain). The error rollups and group trends are keyed by the disposition instead
 *   of the old `handled` flag (retried or caught), so they are rebuilt; groups recount `unhandled`.
 * - `runs.ending_*`: the ending error's code, category, origin, message, step, task, attempt,
 *   root cause's code and chain (JSON), with indexes for the run list's `code` / `category`
 *   filters (which now mean the ending error); the last-error indexes those filters used go.
 * - `failure_rollups` (minute, hour, day): failures by end wall time × category × origin × code ×
 *   root code × flow; `runs_failed_ended` answers a window's partial edges.
 * - `attempts.cancelled_by` / `late_result` (attemptCancelled, receiptIgnoredStale).
 * - The backfill settles every stored occurrence and run from its journal (settle-history.ts).
 */
function failureModel(db: Database.Database): void {
  const endingColumns = [
    'ending_code TEXT',
    'ending_category TEXT',
    'ending_origin TEXT',
    'ending_message TEXT',
    'ending_step INTEGER',
    'ending_task_id TEXT',
    'ending_attempt INTEGER',
    'ending_root_code TEXT',
    'ending_chain TEXT',
  ];
  const rollup = (name: string): string => `
    DROP TABLE ${name};
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      disposition TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow, disposition)
    ) WITHOUT ROWID;`;
  const trend = (name: string): string => `
    DROP TABLE ${name};
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, fingerprint TEXT NOT NULL, flow TEXT NOT NULL, disposition TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (fingerprint, bucket, flow, disposition)
    ) WITHOUT ROWID;
    CREATE INDEX ${name}_bucket ON ${name} (bucket);`;
  const failures = (name: string): string => `
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, root_code TEXT NOT NULL,
      flow TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, root_code, flow)
    ) WITHOUT ROWID;`;
  db.exec(`
    ALTER TABLE errors ADD COLUMN disposition TEXT NOT NULL DEFAULT 'handled';
    ALTER TABLE errors ADD COLUMN ending INTEGER NOT NULL DEFAULT 0;
    ${endingColumns.map((c) => `ALTER TABLE runs ADD COLUMN ${c};`).join('\n')}
    ALTER TABLE attempts ADD COLUMN cancelled_by TEXT;
    ALTER TABLE attempts ADD COLUMN late_result TEXT;
    ${Object.values(ROLLUP_TABLE).map(rollup).join('\n')}
    ${Object.values(GROUP_TREND_TABLE).map(trend).join('\n')}
    ${Object.values(FAILURE_ROLLUP_TABLE).map(failures).join('\n')}
    DROP INDEX runs_last_error_code;
    DROP INDEX runs_last_error_category;
    CREATE INDEX runs_ending_code ON runs (ending_code, started_at, id) WHERE ending_code IS NOT NULL;
    CREATE INDEX runs_ending_root_code ON runs (ending_root_code, started_at, id) WHERE ending_root_code IS NOT NULL;
    CREATE INDEX runs_ending_category ON runs (ending_category, started_at, id) WHERE ending_category IS NOT NULL;
    CREATE INDEX runs_failed_ended ON runs (ended_wall) WHERE status = 'failed';
  `);
  runSync(new StatementCache(db), settleHistory(Dialect.sqlite));
}

/**
 * Version 10 on PostgreSQL (SQLite's part above): error dispositions, the run's ending error,
 * failure rollups, what a sibling-cancelled attempt reported. The rollup and trend tables are
 * created again keyed by disposition (the backfill fills them).
 */
const FAILURE_MODEL_SQL = `
  ALTER TABLE errors ADD COLUMN disposition TEXT NOT NULL DEFAULT 'handled', ADD COLUMN ending INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN ending_code TEXT, ADD COLUMN ending_category TEXT, ADD COLUMN ending_origin TEXT,
    ADD COLUMN ending_message TEXT, ADD COLUMN ending_step BIGINT, ADD COLUMN ending_task_id TEXT,
    ADD COLUMN ending_attempt BIGINT, ADD COLUMN ending_root_code TEXT, ADD COLUMN ending_chain TEXT;
  ALTER TABLE attempts ADD COLUMN cancelled_by TEXT, ADD COLUMN late_result TEXT;
  ${['error_rollups', 'error_rollups_hour', 'error_rollups_day']
    .map(
      (name) => `
  DROP TABLE ${name};
  CREATE TABLE ${name} (
    bucket BIGINT NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
    disposition TEXT NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (bucket, category, origin, code, flow, disposition)
  );`,
    )
    .join('')}
  ${['error_group_trend_hour', 'error_group_trend_day']
    .map(
      (name) => `
  DROP TABLE ${name};
  CREATE TABLE ${name} (
    bucket BIGINT NOT NULL, fingerprint TEXT NOT NULL, flow TEXT NOT NULL, disposition TEXT NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (fingerprint, bucket, flow, disposition)
  );
  CREATE INDEX ${name}_bucket ON ${name} (bucket);`,
    )
    .join('')}
  ${['failure_rollups', 'failure_rollups_hour', 'failure_rollups_day']
    .map(
      (name) => `
  CREATE TABLE ${name} (
    bucket BIGINT NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, root_code TEXT NOT NULL,
    flow TEXT NOT NULL, count BIGINT NOT NULL,
    PRIMARY KEY (bucket, category, origin, code, root_code, flow)
  );`,
    )
    .join('')}
  DROP INDEX runs_last_error_code;
  DROP INDEX runs_last_error_category;
  CREATE INDEX runs_ending_code ON runs (ending_code, started_at, id) WHERE ending_code IS NOT NULL;
  CREATE INDEX runs_ending_root_code ON runs (ending_root_code, started_at, id) WHERE ending_root_code IS NOT NULL;
  CREATE INDEX runs_ending_category ON runs (ending_category, started_at, id) WHERE ending_category IS NOT NULL;
  CREATE INDEX runs_failed_ended ON runs (ended_wall) WHERE status = 'failed';
`;

export const migration: Migration = {
  version: 10,
  name: 'failure model: error dispositions, ending errors, failure rollups',
  sqlite: failureModel,
  // On PostgreSQL: in its types, with the same backfill.
  postgres: async (client) => {
    await client.query(FAILURE_MODEL_SQL);
    await runAsync(executorOf(client), settleHistory(Dialect.postgres));
  },
};
