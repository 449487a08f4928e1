import type Database from 'better-sqlite3';
import { StoreError } from '../store-error.js';

/**
 * Every query is assembled from fixed SQL fragments written in this folder; values (filters,
 * cursors, limits) only ever travel as bound parameters. Column names and sort expressions come
 * from whitelists. A statement is prepared once per distinct SQL text and reused.
 */

export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** A conjunction of fixed fragments with their parameters. */
export class Conditions {
  private readonly fragments: string[] = [];
  readonly params: unknown[] = [];

  add(fragment: string, ...params: unknown[]): this {
    this.fragments.push(fragment);
    this.params.push(...params);
    return this;
  }

  /** `WHERE a AND b`, or '' when empty. */
  where(): string {
    return this.fragments.length === 0 ? '' : ` WHERE ${this.fragments.join(' AND ')}`;
  }

  /** ` AND a AND b` to extend an existing WHERE, or ''. */
  and(): string {
    return this.fragments.length === 0 ? '' : ` AND ${this.fragments.join(' AND ')}`;
  }
}

/** Escapes LIKE wildcards so `%` and `_` in a search are matched literally (ESCAPE '\'). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;

export function clampLimit(limit: number | undefined, fallback = DEFAULT_LIMIT, max = MAX_LIMIT): number {
  if (limit === undefined) return fallback;
  if (!Number.isFinite(limit) || limit < 1) throw new StoreError('invalid_argument', `limit must be a positive number, got ${String(limit)}`);
  return Math.min(Math.floor(limit), max);
}

export function optionalTime(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new StoreError('invalid_argument', `${name} must be a time in milliseconds, got ${String(value)}`);
  }
  return value;
}

export function optionalText(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new StoreError('invalid_argument', `${name} must be a string`);
  return value;
}

/** Opaque, URL-safe cursors: base64url JSON of the sort position. */
export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, expectLength: number, tag: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new StoreError('invalid_argument', 'invalid cursor');
  }
  if (!Array.isArray(value) || value.length !== expectLength || value[0] !== tag) {
    throw new StoreError('invalid_argument', 'invalid cursor (made by another query or sort?)');
  }
  return value;
}
