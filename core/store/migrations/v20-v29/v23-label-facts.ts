import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 23 (exact labels in the window): what a run's and a task's labels are made of.
 *
 * - `runs.flow_steps`, `runs.flow_steps_most`: the steps the run's flow takes when no session
 *   fails and at most (runStarted.flowSteps, core/flow/plan/step-count.ts), so the Step column reads
 *   "3 of 5" instead of "3 / 100" (100 being max-steps). NULL for runs journaled before, for
 *   external runs and for a flow whose count depends on timing: the window shows the step alone.
 * - `tasks.template`: a task's prompt as the flow wrote it, when its name is the prompt filled in
 *   with the run's values (taskStarted.template); NULL otherwise and for older journals, whose
 *   task names are the written prompt.
 *
 * Not backfilled: journals written before carry neither field. The PostgreSQL part
 * below adds the same columns in its types, text bytewise).
 */
function labelFactsSql(dialect: Dialect): string[] {
  // PostgreSQL's text columns compare bytewise as SQLite's do (migration 12).
  const [int, text] = dialect === Dialect.postgres ? ['BIGINT', 'TEXT COLLATE "C"'] : ['INTEGER', 'TEXT'];
  return [
    `ALTER TABLE runs ADD COLUMN flow_steps ${int}`,
    `ALTER TABLE runs ADD COLUMN flow_steps_most ${int}`,
    `ALTER TABLE tasks ADD COLUMN template ${text}`,
  ];
}

function labelFacts(db: Database.Database): void {
  for (const sql of labelFactsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 23,
  name: "labels: the steps a run's flow takes, a task's prompt as written",
  sqlite: labelFacts,
  // On PostgreSQL: the same columns.
  postgres: async (client) => {
    for (const sql of labelFactsSql(Dialect.postgres)) await client.query(sql);
  },
};
