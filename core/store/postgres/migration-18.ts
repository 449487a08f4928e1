import { ERROR_GROUP_FACT_TABLES, ERROR_GROUP_FACTS_BACKFILL } from '../migrations/v18-error-group-facts.js';

/**
 * Version 18 on PostgreSQL: SQLite's issue fact tables (core/store/migration-18.ts) in
 * PostgreSQL's types, bytewise text like every column since version 12, the same backfill, and
 * one trigger function in place of SQLite's three triggers. A run is new to an issue when its
 * (issue, run) row reaches one occurrence, and leaves it when that row reaches zero: the row's
 * lock orders two hosts writing occurrences of one run, so each counts the run at most once.
 */
export const ERROR_GROUP_FACTS_SQL = `
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
