import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../store-error.js';
import { isRefusedWrite } from './write-errors.js';

/** What the databases and drivers throw, told apart: refused for what the batch holds, or "not now". */
describe('isRefusedWrite', () => {
  it('refuses what judges the data: a data exception, a constraint, a limit, a trigger, an invalid event, a bug', () => {
    const server = (code: string): Error => Object.assign(new Error(code), { code, severity: 'ERROR' });
    for (const code of ['22021', '22P02', '22003', '23505', '23514', '54000', 'P0001']) expect(isRefusedWrite(server(code)), code).toBe(true);
    expect(isRefusedWrite(new StoreError('invalid_event', 'run r: event seq 3 is already in the journal'))).toBe(true);
    expect(isRefusedWrite(new TypeError('Do not know how to serialize a BigInt'))).toBe(true);
    const db = new Database(':memory:');
    db.exec("CREATE TABLE t (x TEXT CHECK (x <> 'no'))");
    let constraint: unknown;
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('no');
    } catch (error) {
      constraint = error;
    }
    db.close();
    expect((constraint as { code: string }).code).toBe('SQLITE_CONSTRAINT_CHECK');
    expect(isRefusedWrite(constraint)).toBe(true);
  });

  it('keeps (retries) what may pass: a server away or restarting, a full disk, a lock, a lost connection, anything unknown', () => {
    const server = (code: string): Error => Object.assign(new Error(code), { code, severity: 'FATAL' });
    for (const code of ['57P01', '08006', '53100', '40P01', '40001', '42501', '25006']) expect(isRefusedWrite(server(code)), code).toBe(false);
    expect(isRefusedWrite(new StoreError('unavailable', 'the database is unavailable'))).toBe(false);
    expect(isRefusedWrite(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isRefusedWrite(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(false);
    expect(isRefusedWrite(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isRefusedWrite(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});
