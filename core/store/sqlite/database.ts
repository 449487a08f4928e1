import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, win32 } from 'node:path';
import { StoreError } from '../store-error.js';

/**
 * Opening the SQLite file, with the pragmas every connection of the product uses.
 *
 * Durability: WAL with `synchronous=NORMAL` (the default here). A committed transaction survives
 * the process dying at any moment (kill -9, a crash): its frames are in the WAL file before
 * COMMIT returns. What NORMAL gives up is the last transactions before an OS crash or power
 * loss (the WAL is fsynced at checkpoints, not at each commit); the database is never corrupted
 * by that, it only loses a suffix, and start-up recovery then sees the run as interrupted.
 * `synchronous: 'FULL'` fsyncs every commit (one fsync per batch) for power-loss durability.
 */

export type Synchronous = 'NORMAL' | 'FULL';

export interface DatabaseOptions {
  path: string;
  /** A better-sqlite3 build for another ABI (Electron): path to its `better_sqlite3.node`. */
  nativeBinding?: string;
  readonly?: boolean;
  synchronous?: Synchronous;
  /** How long a writer waits for another process's write lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** `mysql://…` and the like: a server's address, not a file (`postgres://…` goes to the PostgreSQL engine before this). */
const DATABASE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

export function openDatabase(options: DatabaseOptions): Database.Database {
  if (DATABASE_URL.test(options.path)) {
    // Without this, SQLite would create a folder named after the scheme and report success.
    const scheme = options.path.slice(0, options.path.indexOf(':'));
    throw new StoreError(
      'invalid_argument',
      `"${scheme}://…" is a database server's address Hivewatch cannot use: give a SQLite file path or a PostgreSQL URL (postgres://user@host:5432/db)`,
    );
  }
  const memory = options.path === ':memory:';
  if (!memory && !options.readonly) mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path, {
    readonly: options.readonly ?? false,
    fileMustExist: options.readonly ?? false,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
    if (!options.readonly && !memory) db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -16384');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Where the database lives unless told otherwise: `$HIVEWATCH_DB`, else the OS data directory —
 * Linux `$XDG_DATA_HOME/hivewatch/hivewatch.db` (default `~/.local/share`), macOS
 * `~/Library/Application Support/hivewatch/hivewatch.db`, Windows `%APPDATA%\hivewatch\hivewatch.db`.
 */
export function defaultDatabasePath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const override = env.HIVEWATCH_DB;
  if (override !== undefined && override.trim() !== '') return override;
  if (platform === 'win32') {
    const appData = env.APPDATA && env.APPDATA !== '' ? env.APPDATA : win32.join(home, 'AppData', 'Roaming');
    return win32.join(appData, 'hivewatch', 'hivewatch.db');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'hivewatch', 'hivewatch.db');
  const xdg = env.XDG_DATA_HOME;
  const base = xdg !== undefined && xdg.startsWith('/') ? xdg : join(home, '.local', 'share');
  return join(base, 'hivewatch', 'hivewatch.db');
}
