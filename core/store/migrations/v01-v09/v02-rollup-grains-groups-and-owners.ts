import type Database from 'better-sqlite3';
import { fingerprintOf } from '../../projection/fingerprint.js';
import type { Migration } from '../migration.js';

/**
 * Version 2: coarser rollups (hour, day) so a long window reads few buckets, the error-group
 * table, run ownership for safe start-up recovery, and the indexes prune / groups / resume need.
 * Backfills everything from what version 1 stored.
 */
function rollupGrainsGroupsAndOwners(db: Database.Database): void {
  const rollupTable = (name: string): string => `
    CREATE TABLE ${name} (
      bucket INTEGER NOT NULL, category TEXT NOT NULL, origin TEXT NOT NULL, code TEXT NOT NULL, flow TEXT NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (bucket, category, origin, code, flow)
    ) WITHOUT ROWID;`;
  const floor = (size: number): string => `bucket - (((bucket % ${size}) + ${size}) % ${size})`;
  db.exec(`
    ${rollupTable('error_rollups_hour')}
    ${rollupTable('error_rollups_day')}
    INSERT INTO error_rollups_hour (bucket, category, origin, code, flow, count)
      SELECT ${floor(3_600_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;
    INSERT INTO error_rollups_day (bucket, category, origin, code, flow, count)
      SELECT ${floor(86_400_000)}, category, origin, code, flow, SUM(count) FROM error_rollups
      GROUP BY 1, 2, 3, 4, 5;

    CREATE TABLE error_groups (
      fingerprint TEXT PRIMARY KEY,
      category TEXT NOT NULL, code TEXT NOT NULL, origin TEXT NOT NULL,
      template TEXT NOT NULL, last_message TEXT NOT NULL,
      count INTEGER NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL
    );
    CREATE INDEX errors_fingerprint ON errors (fingerprint, ts);

    CREATE TABLE run_hosts (
      run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL, instance TEXT NOT NULL,
      claimed_at INTEGER NOT NULL
    );
    CREATE INDEX runs_ended ON runs (ended_at);
    CREATE INDEX runs_resumed_from ON runs (resumed_from) WHERE resumed_from IS NOT NULL;
  `);

  const groups = db.prepare(
    `SELECT fingerprint, category, code, origin, COUNT(*) AS count, MIN(ts) AS first_seen, MAX(ts) AS last_seen,
       (SELECT message FROM errors AS latest WHERE latest.fingerprint = e.fingerprint ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 1) AS last_message
     FROM errors AS e GROUP BY fingerprint`,
  );
  const insert = db.prepare(
    `INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, first_seen, last_seen)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  type Group = {
    fingerprint: string;
    category: string;
    code: string;
    origin: string;
    last_message: string;
    count: number;
    first_seen: number;
    last_seen: number;
  };
  for (const g of groups.all() as Group[]) {
    const template = fingerprintOf(g.category, g.code, g.origin, g.last_message).template;
    insert.run(g.fingerprint, g.category, g.code, g.origin, template, g.last_message, g.count, g.first_seen, g.last_seen);
  }
}

export const migration: Migration = {
  version: 2,
  name: 'hour/day rollups, error groups, run owners, indexes',
  sqlite: rollupGrainsGroupsAndOwners,
};
