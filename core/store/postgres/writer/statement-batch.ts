import type pg from 'pg';
import type { Queryable } from './multi-row.js';
import { WITH_COMMIT } from '../connection/transaction.js';

/**
 * A journal batch's writes in one round trip. node-postgres sends one statement and waits for
 * its answer before the next, so a batch of a dozen statements (projections, rollups, run hosts,
 * commit positions, events) waited a dozen times for the server; on a busy machine each wait is
 * a scheduling delay of the server's backend too, and starting 500 runs through `serve` took
 * 73 s. Collected here instead, the statements go out as one simple-protocol
 * query, run in order inside the caller's transaction; a failing statement stops the rest and
 * aborts the transaction exactly as it did one at a time.
 *
 * The simple protocol carries no parameters, so each value is written as a quoted literal. That
 * is what node-postgres sends for a parameter anyway (its text form, type unknown): the server
 * resolves a quoted literal to the column's type the same way, so every statement means what
 * it meant with parameters. A value with no faithful literal (a NUL byte, which no PostgreSQL
 * text can hold, or a type other than text, number, boolean, null and arrays of them) sends the batch one
 * statement at a time with real parameters, so the server answers it as before.
 */

interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** The same empty answer for every collected statement: no caller of a batched write reads it. */
const COLLECTED = { rows: [], rowCount: 0, command: '', oid: 0, fields: [] };

/** An array's text as node-postgres writes it for a parameter (`{"a","b"}`); null for what it does not hold. */
function arrayText(values: readonly unknown[]): string | null {
  const elements: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) elements.push('NULL');
    else if (typeof value === 'string') elements.push(`"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
    else if (typeof value === 'number' || typeof value === 'bigint') elements.push(String(value));
    else return null;
  }
  return `{${elements.join(',')}}`;
}

/**
 * A string's quoted literal, the same text `pg.escapeLiteral` writes (quotes doubled; with a
 * backslash, backslashes doubled and an ` E` prefix, so it means the same whatever
 * standard_conforming_strings says). Written with native replaces: pg's version appends one
 * character at a time, which on batches of a thousand JSON payloads cost the writer bench a sixth
 * of its wall time, most of it garbage collection (docs/benches.md, "The writer against raw INSERTs").
 */
export function quoteText(value: string): string {
  const quoted = value.includes("'") ? value.replace(/'/g, "''") : value;
  return value.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

function literal(value: unknown): string | null {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) {
    const text = arrayText(value);
    return text === null ? null : literal(text);
  }
  switch (typeof value) {
    case 'string':
      return value.includes('\u0000') ? null : quoteText(value);
    case 'number':
    case 'bigint':
    case 'boolean':
      return `'${String(value)}'`;
    default:
      return null;
  }
}

/**
 * `sql` with each `$n` replaced by the literal of `params[n - 1]`; null when one has none. A scan
 * with `indexOf` and one join: at 7,000 placeholders a statement, a regular expression's replace
 * calling back per placeholder took half as long again.
 */
export function inlineStatement(sql: string, params: readonly unknown[]): string | null {
  const parts: string[] = [];
  let copied = 0;
  for (let at = sql.indexOf('$'); at !== -1; at = sql.indexOf('$', at + 1)) {
    let end = at + 1;
    while (end < sql.length && sql.charCodeAt(end) >= 48 && sql.charCodeAt(end) <= 57) end += 1;
    if (end === at + 1) continue;
    const value = literal(params[Number(sql.slice(at + 1, end)) - 1]);
    if (value === null) return null;
    parts.push(sql.slice(copied, at), value);
    copied = end;
    at = end - 1;
  }
  parts.push(sql.slice(copied));
  return parts.join('');
}

export class StatementBatch {
  private readonly statements: Statement[] = [];

  /**
   * What the batch's writers write to, in place of a connection: it collects each statement and
   * answers it empty (no batched write reads its answer; `send` returns the real ones).
   */
  readonly collector = {
    query: (sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult> => {
      this.statements.push({ sql, params });
      return Promise.resolve(COLLECTED as unknown as pg.QueryResult);
    },
  } as unknown as Queryable;

  /** How many statements are collected: the index `send`'s answer will have for the next one. */
  get size(): number {
    return this.statements.length;
  }

  /**
   * Runs every collected statement in order on `client`; one answer per statement. `commit`: the
   * transaction's COMMIT goes in the same round trip (transaction.ts WITH_COMMIT), so a batch
   * whose BEGIN went with it too is one wait in all. When the batch goes one statement at a time,
   * the COMMIT is left to the transaction as before.
   */
  async send(client: Queryable, options: { commit?: boolean } = {}): Promise<pg.QueryResult[]> {
    if (this.statements.length === 0) return [];
    const inlined = this.statements.map((s) => inlineStatement(s.sql, s.params));
    if (inlined.some((text) => text === null)) return this.oneByOne(client);
    const text = inlined.join(';\n');
    const answer = (await client.query(options.commit === true ? `${text}${WITH_COMMIT}` : text)) as pg.QueryResult | pg.QueryResult[];
    const answers = Array.isArray(answer) ? answer : [answer];
    return options.commit === true ? answers.slice(0, this.statements.length) : answers;
  }

  private async oneByOne(client: Queryable): Promise<pg.QueryResult[]> {
    const answers: pg.QueryResult[] = [];
    for (const { sql, params } of this.statements) answers.push(await client.query(sql, [...params]));
    return answers;
  }
}
