import type pg from 'pg';
import type { StoreStats } from '../../contract.js';
import { POSTGRES_SCHEMA_VERSION, postgresSchemaVersion } from '../migrate.js';

/**
 * The store's own consistency check on PostgreSQL: the server answers, the schema is the one
 * this build knows, and the journal's head is not behind its newest commit position (a reused
 * position would be missed by every tail). The server checks its own pages; this checks ours.
 */
export async function integrityProblems(pool: pg.Pool): Promise<string[]> {
  await pool.query('SELECT 1');
  const version = await postgresSchemaVersion(pool);
  if (version !== POSTGRES_SCHEMA_VERSION) return [`schema version ${version}, this Hivewatch expects ${POSTGRES_SCHEMA_VERSION}`];
  const { rows } = await pool.query<{ head: number | null; newest: number | null }>(
    'SELECT (SELECT commit_seq FROM journal_head WHERE id = 1) AS head, (SELECT MAX(commit_seq) FROM events) AS newest',
  );
  const { head, newest } = rows[0] ?? { head: null, newest: null };
  if (head === null) return ['journal_head has no row'];
  if (newest !== null && newest > head) return [`journal_head ${head} is behind the newest commit position ${newest}`];
  return [];
}

export async function storeStats(pool: pg.Pool): Promise<StoreStats> {
  const { rows } = await pool.query<Omit<StoreStats, 'schemaVersion'>>(
    `SELECT (SELECT COUNT(*) FROM runs) AS runs, (SELECT COUNT(*) FROM events) AS events,
      (SELECT COUNT(*) FROM errors) AS errors, pg_database_size(current_database()) AS bytes`,
  );
  return { schemaVersion: await postgresSchemaVersion(pool), ...rows[0]! };
}
