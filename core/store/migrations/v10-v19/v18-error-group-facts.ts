import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 18 (the Errors screen at a million errors): the facts an issue shows
 * that `error_groups` does not keep (runs affected, failures, flows), kept at commit instead of
 * counted from every occurrence on each read (seconds at 1,000,000 errors):
 *  - `error_group_runs`: occurrences per (issue, run), so a run is counted once however many
 *    occurrences it has, and uncounted when its last one goes (prune);
 *  - `error_group_flows`: occurrences per (issue, flow): the issue's flows are its rows;
 *  - `error_group_stats`: per issue, the runs with an occurrence and the failures (occurrences
 *    that are their run's ending error, `errors.ending`).
 * Triggers on `errors` keep them (insert, delete, and an update that changes an occurrence's
 * fingerprint, run, flow or ending: a run's end settles its occurrences by rewriting them), so
 * every path that writes errors (ingest, settle, prune, repair) keeps them without knowing.
 * The migration fills them from the errors already stored. The PostgreSQL part
 * (ERROR_GROUP_FACTS_SQL below) has the same tables and one trigger function.
 */

const ERROR_GROUP_FACT_TABLES = (int: string, text: string): string => `
  CREATE TABLE error_group_runs (
    fingerprint ${text} NOT NULL, run_id ${text} NOT NULL, occurrences ${int} NOT NULL,
    PRIMARY KEY (fingerprint, run_id)
  );
  CREATE TABLE error_group_flows (
    fingerprint ${text} NOT NULL, flow ${text} NOT NULL, occurrences ${int} NOT NULL,
    PRIMARY KEY (fingerprint, flow)
  );
  CREATE TABLE error_group_stats (
    fingerprint ${text} NOT NULL PRIMARY KEY, runs ${int} NOT NULL, failures ${int} NOT NULL
  );
`;

/** The backfill: the same numbers the triggers keep, counted once from the stored errors. */
const ERROR_GROUP_FACTS_BACKFILL = [
  'INSERT INTO error_group_runs (fingerprint, run_id, occurrences) SELECT fingerprint, run_id, COUNT(*) FROM errors GROUP BY fingerprint, run_id',
  'INSERT INTO error_group_flows (fingerprint, flow, occurrences) SELECT fingerprint, flow, COUNT(*) FROM errors GROUP BY fingerprint, flow',
  `INSERT INTO error_group_stats (fingerprint, runs, failures)
     SELECT fingerprint, COUNT(DISTINCT run_id), SUM(CASE WHEN ending = 1 THEN 1 ELSE 0 END) FROM errors GROUP BY fingerprint`,
] as const;

/** Counts `row` (new / old) in; the run is new to the issue when its pair count reaches 1. */
const countIn = (row: string): string => `
  INSERT INTO error_group_runs (fingerprint, run_id, occurrences) VALUES (${row}.fingerprint, ${row}.run_id, 1)
    ON CONFLICT (fingerprint, run_id) DO UPDATE SET occurrences = occurrences + 1;
  INSERT INTO error_group_flows (fingerprint, flow, occurrences) VALUES (${row}.fingerprint, ${row}.flow, 1)
    ON CONFLICT (fingerprint, flow) DO UPDATE SET occurrences = occurrences + 1;
  INSERT INTO error_group_stats (fingerprint, runs, failures)
    VALUES (${row}.fingerprint,
      (SELECT occurrences FROM error_group_runs WHERE fingerprint = ${row}.fingerprint AND run_id = ${row}.run_id) = 1,
      CASE WHEN ${row}.ending = 1 THEN 1 ELSE 0 END)
    ON CONFLICT (fingerprint) DO UPDATE SET runs = runs + excluded.runs, failures = failures + excluded.failures;`;

/** Counts `row` out (the run leaves the issue with its last occurrence); emptied rows are deleted. */
const countOut = (row: string): string => `
  UPDATE error_group_stats SET
      runs = runs - ((SELECT occurrences FROM error_group_runs WHERE fingerprint = ${row}.fingerprint AND run_id = ${row}.run_id) = 1),
      failures = failures - (CASE WHEN ${row}.ending = 1 THEN 1 ELSE 0 END)
    WHERE fingerprint = ${row}.fingerprint;
  DELETE FROM error_group_stats WHERE fingerprint = ${row}.fingerprint AND runs <= 0;
  UPDATE error_group_runs SET occurrences = occurrences - 1 WHERE fingerprint = ${row}.fingerprint AND run_id = ${row}.run_id;
  DELETE FROM error_group_runs WHERE fingerprint = ${row}.fingerprint AND run_id = ${row}.run_id AND occurrences <= 0;
  UPDATE error_group_flows SET occurrences = occurrences - 1 WHERE fingerprint = ${row}.fingerprint AND flow = ${row}.flow;
  DELETE FROM error_group_flows WHERE fingerprint = ${row}.fingerprint AND flow = ${row}.flow AND occurrences <= 0;`;

function errorGroupFacts(db: Database.Database): void {
  db.exec(ERROR_GROUP_FACT_TABLES('INTEGER', 'TEXT').replace(/\);/g, ') WITHOUT ROWID;'));
  for (const sql of ERROR_GROUP_FACTS_BACKFILL) db.exec(sql);
  db.exec(`
    CREATE TRIGGER error_group_facts_insert AFTER INSERT ON errors BEGIN ${countIn('new')} END;
    CREATE TRIGGER error_group_facts_delete AFTER DELETE ON errors BEGIN ${countOut('old')} END;
    CREATE TRIGGER error_group_facts_update AFTER UPDATE OF fingerprint, run_id, flow, ending ON errors
      WHEN old.fingerprint IS NOT new.fingerprint OR old.run_id IS NOT new.run_id OR old.flow IS NOT new.flow OR old.ending IS NOT new.ending
      BEGIN ${countOut('old')} ${countIn('new')} END;
  `);
}

/**
 * Version 18 on PostgreSQL: SQLite's issue fact tables (above) in
 * PostgreSQL's types, bytewise text like every column since version 12, the same backfill, and
 * one trigger function in place of SQLite's three triggers. A run is new to an issue when its
 * (issue, run) row reaches one occurrence, and leaves it when that row reaches zero: the row's
 * lock orders two hosts writing occurrences of one run, so each counts the run at most once.
 */
const ERROR_GROUP_FACTS_SQL = `
  ${ERROR_GROUP_FACT_TABLES('BIGINT', 'TEXT COLLATE "C"')}
  ${ERROR_GROUP_FACTS_BACKFILL.map((sql) => `${sql};`).join('\n  ')}
  CREATE FUNCTION hivewatch_error_group_facts() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    left_run BIGINT;
    joined_run BIGINT;
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      UPDATE error_group_runs SET occurrences = error_group_runs.occurrences - 1
        WHERE fingerprint = OLD.fingerprint AND run_id = OLD.run_id RETURNING occurrences INTO left_run;
      DELETE FROM error_group_runs WHERE fingerprint = OLD.fingerprint AND run_id = OLD.run_id AND occurrences <= 0;
      UPDATE error_group_flows SET occurrences = error_group_flows.occurrences - 1 WHERE fingerprint = OLD.fingerprint AND flow = OLD.flow;
      DELETE FROM error_group_flows WHERE fingerprint = OLD.fingerprint AND flow = OLD.flow AND occurrences <= 0;
      UPDATE error_group_stats SET
          runs = error_group_stats.runs - CASE WHEN left_run <= 0 THEN 1 ELSE 0 END,
          failures = error_group_stats.failures - CASE WHEN OLD.ending = 1 THEN 1 ELSE 0 END
        WHERE fingerprint = OLD.fingerprint;
      DELETE FROM error_group_stats WHERE fingerprint = OLD.fingerprint AND runs <= 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO error_group_runs (fingerprint, run_id, occurrences) VALUES (NEW.fingerprint, NEW.run_id, 1)
        ON CONFLICT (fingerprint, run_id) DO UPDATE SET occurrences = error_group_runs.occurrences + 1
        RETURNING occurrences INTO joined_run;
      INSERT INTO error_group_flows (fingerprint, flow, occurrences) VALUES (NEW.fingerprint, NEW.flow, 1)
        ON CONFLICT (fingerprint, flow) DO UPDATE SET occurrences = error_group_flows.occurrences + 1;
      INSERT INTO error_group_stats (fingerprint, runs, failures)
        VALUES (NEW.fingerprint, CASE WHEN joined_run = 1 THEN 1 ELSE 0 END, CASE WHEN NEW.ending = 1 THEN 1 ELSE 0 END)
        ON CONFLICT (fingerprint) DO UPDATE SET runs = error_group_stats.runs + excluded.runs, failures = error_group_stats.failures + excluded.failures;
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER error_group_facts_insert AFTER INSERT ON errors FOR EACH ROW EXECUTE FUNCTION hivewatch_error_group_facts();
  CREATE TRIGGER error_group_facts_delete AFTER DELETE ON errors FOR EACH ROW EXECUTE FUNCTION hivewatch_error_group_facts();
  CREATE TRIGGER error_group_facts_update AFTER UPDATE OF fingerprint, run_id, flow, ending ON errors FOR EACH ROW
    WHEN (OLD.fingerprint IS DISTINCT FROM NEW.fingerprint OR OLD.run_id IS DISTINCT FROM NEW.run_id
      OR OLD.flow IS DISTINCT FROM NEW.flow OR OLD.ending IS DISTINCT FROM NEW.ending)
    EXECUTE FUNCTION hivewatch_error_group_facts();
`;

export const migration: Migration = {
  version: 18,
  name: "issue facts kept at commit: each issue's runs, flows and failures",
  sqlite: errorGroupFacts,
  postgres: async (client) => {
    await client.query(ERROR_GROUP_FACTS_SQL);
  },
};
