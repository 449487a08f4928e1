import type Database from 'better-sqlite3';
import { Dialect } from '../../queries/plan.js';
import type { Migration } from '../migration.js';

/**
 * Version 25 (waiting on a person): what a run's permission prompts come to
 * (core/store/projection/approval-reducer.ts).
 *
 * - `runs.approval_since`, `runs.approval_label`: the prompt open now (its start, what it asks
 *   for), NULL when none is; the partial index serves the `waiting-approval` filter, its count
 *   and the alert on prompts pending too long without reading the runs that do not wait.
 * - `runs.approval_wait_ms`: the total time the run waited on a person, 0 before; the partial
 *   index by end time serves each flow's time waited in a window (outcomes/approval-waits.ts).
 *
 * Not backfilled: runs journaled before carry no approval events. The PostgreSQL part
 * below runs the same statements in its types.
 */
function approvalWaitsSql(dialect: Dialect): string[] {
  const [int, text] = dialect === Dialect.postgres ? ['BIGINT', 'TEXT COLLATE "C"'] : ['INTEGER', 'TEXT'];
  return [
    `ALTER TABLE runs ADD COLUMN approval_since ${int}`,
    `ALTER TABLE runs ADD COLUMN approval_label ${text}`,
    `ALTER TABLE runs ADD COLUMN approval_wait_ms ${int} NOT NULL DEFAULT 0`,
    'CREATE INDEX runs_approval_since ON runs (approval_since) WHERE approval_since IS NOT NULL',
    'CREATE INDEX runs_approval_waited ON runs (ended_wall) WHERE approval_wait_ms > 0',
  ];
}

function approvalWaits(db: Database.Database): void {
  for (const sql of approvalWaitsSql(Dialect.sqlite)) db.exec(sql);
}

export const migration: Migration = {
  version: 25,
  name: 'waiting on a person: the permission prompt a run waits on, the time it waited',
  sqlite: approvalWaits,
  // On PostgreSQL: the same columns and partial index.
  postgres: async (client) => {
    for (const sql of approvalWaitsSql(Dialect.postgres)) await client.query(sql);
  },
};
