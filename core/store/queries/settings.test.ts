import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('settings', () => {
  it('keep a secret with the database: created once, read back after a restart', () => {
    const path = join(dir, 'h.db');
    let made = 0;
    const create = (): string => `token-${(made += 1)}`;
    const first = openSqliteStore({ path });
    expect(first.getSetting('http.token')).toBeNull();
    expect(first.secret('http.token', create)).toBe('token-1');
    expect(first.secret('http.token', create)).toBe('token-1');
    first.setSetting('http.port', '4123');
    first.close();

    const again = openSqliteStore({ path });
    expect(again.secret('http.token', create)).toBe('token-1');
    expect(again.getSetting('http.port')).toBe('4123');
    again.close();
    const reader = openSqliteStore({ path, readonly: true });
    expect(reader.secret('http.token', create)).toBe('token-1');
    expect(() => reader.secret('ingest.token', create)).toThrow('no ingest.token in this database, and it is open read-only');
    reader.close();
    expect(made).toBe(1);
  });

  it('refuse names that are not lower-case dotted words', () => {
    const store = openSqliteStore({ path: ':memory:' });
    expect(() => store.setSetting('Http Token', 'x')).toThrow('invalid setting name "Http Token" (lower-case dotted words, like http.token)');
    expect(() => store.getSetting("x'; DROP TABLE settings")).toThrow(/invalid setting name/);
    store.close();
  });
});
