import { runAsync, type Query } from '../queries/plan.js';
import { StoreError } from '../store-error.js';
import { ReaderThread, type ReaderOptions } from './reader-thread.js';
import { checkedReadWorkers } from './read-workers.js';

/**
 * Reads in parallel on one SQLite file: a fixed number of worker threads, each with its own
 * read-only connection (read-worker.ts), beside the store's one connection, which keeps every
 * write. A query (a generator of queries/plan.ts) runs on the main thread as everywhere; its
 * statements go, one at a time, to the one worker it was handed, inside one read transaction:
 * one snapshot per query, as on the store's connection, and a write burst on the main thread
 * never queues a read (WAL readers see the last commit before their first statement).
 *
 * A query waits for a free worker (first come, first served). A worker that dies rejects the read
 * it was answering (`unavailable`) and is replaced; a replacement that cannot even open the
 * database is not replaced again, and once no worker is left the reads go to the store's own
 * connection (`fallback`). Closing ends every thread before it resolves.
 */

interface ReadPoolOptions extends ReaderOptions {
  /** How many worker threads (each one connection). */
  size: number;
  /** Where reads go when no worker is left: the store's own connection, answering at once. */
  fallback: <T>(query: Query<T>) => T;
  /** Where a worker's loss is said. */
  log?: (line: string) => void;
}

interface Turn {
  /** A free reader, or null: none is left, use the fallback. */
  resolve(reader: ReaderThread | null): void;
  reject(error: unknown): void;
}

const closedError = (): StoreError => new StoreError('closed', 'the store is closed');

export class SqliteReadPool {
  private readonly readers: ReaderThread[] = [];
  private readonly idle: ReaderThread[] = [];
  private readonly turns: Turn[] = [];
  private closed = false;
  /** Every first worker opened the database (before that, a failure is `open`'s error, not a log line). */
  private opened = false;
  private readonly log: (line: string) => void;

  private constructor(private readonly options: ReadPoolOptions) {
    this.log = options.log ?? ((line) => console.error(line));
  }

  /** Starts `size` workers and resolves once each has opened the database (rejects, with none left running, when one cannot). */
  static async open(options: ReadPoolOptions): Promise<SqliteReadPool> {
    const size = checkedReadWorkers(options.size);
    if (size === 0) throw new StoreError('invalid_argument', 'a read pool needs at least one worker');
    const pool = new SqliteReadPool(options);
    for (let i = 0; i < size; i++) pool.spawn();
    try {
      await Promise.all(pool.readers.map((reader) => reader.ready));
    } catch (error) {
      await pool.close();
      const reason = error instanceof Error ? error.message : String(error);
      throw new StoreError('unavailable', `the read workers could not open ${options.path}: ${reason}`, { cause: error });
    }
    pool.opened = true;
    return pool;
  }

  /** How many workers are running. */
  get size(): number {
    return this.readers.length;
  }

  /** The running workers' thread ids (diagnostics; tests check that closing ends them). */
  threadIds(): number[] {
    return this.readers.map((reader) => reader.threadId);
  }

  /** Runs one query on a worker, all its statements in one read transaction. */
  async read<T>(query: Query<T>): Promise<T> {
    if (this.closed) throw closedError();
    const reader = await this.turn();
    if (reader === null) return this.options.fallback(query);
    reader.hold();
    try {
      return await runAsync((step) => reader.step(step), query);
    } finally {
      reader.end();
      this.release(reader);
    }
  }

  /** Ends every worker (each closes its connection first); reads waiting for one reject as `closed`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const turn of this.turns.splice(0)) turn.reject(closedError());
    const readers = this.readers.splice(0);
    this.idle.length = 0;
    await Promise.all(readers.map((reader) => reader.close()));
  }

  /** Ends one worker at once, as a crash would: the read it answers rejects and a new worker takes its place. */
  async crashOne(threadId: number): Promise<void> {
    await this.readers.find((reader) => reader.threadId === threadId)?.terminate();
  }

  private spawn(): void {
    const reader = new ReaderThread(this.options, (lost, reason) => this.lost(lost, reason));
    this.readers.push(reader);
    this.release(reader);
  }

  private turn(): Promise<ReaderThread | null> {
    const reader = this.idle.shift();
    if (reader !== undefined) return Promise.resolve(reader);
    if (this.readers.length === 0) return Promise.resolve(null);
    return new Promise((resolve, reject) => this.turns.push({ resolve, reject }));
  }

  /** A reader is free again: the longest-waiting read takes it. */
  private release(reader: ReaderThread): void {
    if (this.closed || reader.ended || !this.readers.includes(reader)) return;
    const next = this.turns.shift();
    if (next !== undefined) next.resolve(reader);
    else this.idle.push(reader);
  }

  private lost(reader: ReaderThread, reason: string): void {
    const at = this.readers.indexOf(reader);
    if (at >= 0) this.readers.splice(at, 1);
    const idleAt = this.idle.indexOf(reader);
    if (idleAt >= 0) this.idle.splice(idleAt, 1);
    if (this.closed || !this.opened) return;
    if (reader.started) {
      this.log(`hivewatch: a read worker stopped (${reason}); starting another`);
      this.spawn();
      return;
    }
    // It never opened the database: another would fail alike, so the pool shrinks instead.
    this.log(`hivewatch: a read worker could not open ${this.options.path} (${reason}); ${this.readers.length} left`);
    if (this.readers.length === 0) for (const turn of this.turns.splice(0)) turn.resolve(null);
  }
}
