import type Database from 'better-sqlite3';

/**
 * Version 18 (the Errors screen at a million errors): the facts an issue shows
 * that `error_groups` does not keep (runs affected, failures, flows), kept at commit instead of
 * counted from every occurrence on each read (seconds at 1,000,000 errors):
 *  - `error_group_runs`: occurrences per (issue, run), so a run is counted once however many
 *    occurrences it has, and uncounted when its last one goes (prune);
 *  - `error_group_flows`: occurrences per (issue, flow): the flows are its rows;
 *  - `error_group_stats`: per issue, the runs with an occurrence and the failures (occurrences
 *    that are their run's ending error, `errors.ending`).
 * Triggers on `errors` keep them (insert, delete, and an update that changes an occurrence's
 * fingerprint, run, flow or ending: a run's end settles its occurrences by rewriting them), so
 * every path that writes errors (ingest, settle, prune, repair) keeps them without knowing.
 * The migration fills them from the errors already stored. The PostgreSQL twin is
 * postgres/migration-18.ts (same tables, a trigger function).
 */

export const ERROR_GROUP_FACT_TABLES = (int: string, text: string): string => `
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
export const ERROR_GROUP_FACTS_BACKFILL = [
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

export function errorGroupFacts(db: Database.Database): void {
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
