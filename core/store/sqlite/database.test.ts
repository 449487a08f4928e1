import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDatabasePath, openSqliteStore } from '../index.js';

describe('defaultDatabasePath', () => {
  it('follows the OS data directory, and HIVEWATCH_DB overrides it', () => {
    expect(defaultDatabasePath({}, 'linux', '/home/ana')).toBe('/home/ana/.local/share/hivewatch/hivewatch.db');
    expect(defaultDatabasePath({ XDG_DATA_HOME: '/data' }, 'linux', '/home/ana')).toBe('/data/hivewatch/hivewatch.db');
    expect(defaultDatabasePath({ XDG_DATA_HOME: 'relative' }, 'linux', '/home/ana')).toBe('/home/ana/.local/share/hivewatch/hivewatch.db');
    expect(defaultDatabasePath({}, 'darwin', '/Users/ana')).toBe('/Users/ana/Library/Application Support/hivewatch/hivewatch.db');
    expect(defaultDatabasePath({ APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, 'win32', 'C:\\Users\\ana')).toBe(
      'C:\\Users\\ana\\AppData\\Roaming\\hivewatch\\hivewatch.db',
    );
    expect(defaultDatabasePath({ HIVEWATCH_DB: '/tmp/x.db', XDG_DATA_HOME: '/data' }, 'linux', '/home/ana')).toBe('/tmp/x.db');
  });
});

describe('openSqliteStore', () => {
  it('creates the directory and opens WAL, synchronous=NORMAL, foreign keys on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hw-open-'));
    try {
      const store = openSqliteStore({ path: join(dir, 'nested', 'deeper', 'hivewatch.db') });
      expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.database.pragma('synchronous', { simple: true })).toBe(1);
      expect(store.database.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(store.database.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(store.integrityCheck()).toEqual(['ok']);
      expect(store.stats()).toMatchObject({ runs: 0, events: 0, errors: 0 });
      store.close();
      store.close();
      expect(() => store.listRuns()).toThrow(/closed/);
      const full = openSqliteStore({ path: join(dir, 'nested', 'deeper', 'hivewatch.db'), synchronous: 'FULL' });
      expect(full.database.pragma('synchronous', { simple: true })).toBe(2);
      full.close();
      const reader = openSqliteStore({ path: join(dir, 'nested', 'deeper', 'hivewatch.db'), readonly: true });
      expect(() => reader.appendEvents([])).toThrow(/read-only/);
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
