import type Database from 'better-sqlite3';
import { StoreError } from './store-error.js';

/**
 * Small facts a database keeps about itself (migration 4's `settings` table): the browser
 * shell's access token and port, later an ingest token. Keys are dotted names
 * (`http.token`); values are text. A secret is created once per database and then read back by
 * every process that opens it, so a token outlives restarts of the server.
 */

const KEY = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

function checkKey(key: string): void {
  if (typeof key !== 'string' || !KEY.test(key) || key.length > 100) {
    throw new StoreError('invalid_argument', `invalid setting name "${String(key)}" (lower-case dotted words, like http.token)`);
  }
}

export function getSetting(db: Database.Database, key: string): string | null {
  checkKey(key);
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? row.value : null;
}

export function setSetting(db: Database.Database, key: string, value: string, now: number): void {
  checkKey(key);
  if (typeof value !== 'string') throw new StoreError('invalid_argument', `setting ${key} must be text`);
  db.prepare(
    'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ).run(key, value, now);
}

/**
 * The value of `key`, created with `create()` when the database has none yet. Read and written
 * under the write lock, so two processes opening a fresh database agree on one value.
 */
export function ensureSetting(db: Database.Database, key: string, create: () => string, now: number): string {
  checkKey(key);
  return db
    .transaction(() => {
      const existing = getSetting(db, key);
      if (existing !== null) return existing;
      const value = create();
      setSetting(db, key, value, now);
      return value;
    })
    .immediate();
}
