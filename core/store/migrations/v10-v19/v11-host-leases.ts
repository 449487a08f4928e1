import type Database from 'better-sqlite3';
import type { Migration } from '../migration.js';

/**
 * Version 11 (dead hosts seen at once): every host keeps a lease in the
 * database, as PostgreSQL's have since its baseline: `hosts` with the heartbeat, and what tells
 * the host's process from a later one with its pid (`machine`: boot and pid namespace;
 * `start_time`: field 22 of /proc/<pid>/stat). See core/store/hosts/host-liveness.ts. Independent of
 * version 10 (another change landing beside it): it only adds a table.
 */
function hostLeases(db: Database.Database): void {
  db.exec(`
    CREATE TABLE hosts (
      instance TEXT PRIMARY KEY, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
      started_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL, lease_ms INTEGER NOT NULL,
      machine TEXT, start_time TEXT
    ) WITHOUT ROWID;
  `);
}

export const migration: Migration = {
  version: 11,
  name: 'host leases: heartbeat, machine and process start time of every host',
  postgresName: 'host leases: machine and process start time of every host',
  sqlite: hostLeases,
  // SQLite's version 11 creates the `hosts` table PostgreSQL has had since its baseline; here
  // it gains what tells a host's process from a later one with its pid (host-liveness.ts).
  postgres: async (client) => {
    await client.query('ALTER TABLE hosts ADD COLUMN machine TEXT, ADD COLUMN start_time TEXT');
  },
};
