import { get, run, type Dialect, type Query } from './plan.js';
import { StoreError } from '../store-error.js';

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

export function* getSetting(_dialect: Dialect, key: string): Query<string | null> {
  checkKey(key);
  const row = yield* get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
  return row ? row.value : null;
}

export function* setSetting(_dialect: Dialect, key: string, value: string, now: number): Query<void> {
  checkKey(key);
  if (typeof value !== 'string') throw new StoreError('invalid_argument', `setting ${key} must be text`);
  yield* run(
    'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    [key, value, now],
  );
}

/**
 * The value of `key`, created with `create()` when the database has none yet. The insert keeps
 * a value another process wrote first (DO NOTHING) and the value is read back after it, so two
 * processes opening a fresh database agree on one value without holding a transaction open
 * across statements (which an engine-neutral query cannot).
 */
export function* ensureSetting(dialect: Dialect, key: string, create: () => string, now: number): Query<string> {
  checkKey(key);
  const existing = yield* getSetting(dialect, key);
  if (existing !== null) return existing;
  yield* run('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', [key, create(), now]);
  const stored = yield* getSetting(dialect, key);
  if (stored === null) throw new StoreError('corrupt', `setting ${key} was written but cannot be read back`);
  return stored;
}
