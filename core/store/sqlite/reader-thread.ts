import Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { SqlStep } from '../queries/plan.js';
import { StoreError } from '../store-error.js';
import { READ_WORKER_SOURCE, type FromReader, type ReadWorkerData, type ToReader } from './read-worker.js';

/**
 * One read worker seen from the main thread: its thread, the step it waits on, and how it ended.
 * It runs one query at a time (the pool hands it out and takes it back, read-pool.ts); each step
 * is one message out and one answer back.
 */

/** better-sqlite3's module as this thread resolved it: the worker loads the same one. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

export interface ReaderOptions {
  path: string;
  nativeBinding?: string;
  busyTimeoutMs?: number;
}

interface Waiting {
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

/** An error a statement threw in the worker, as the same statement would throw it on the store's connection. */
function statementError(message: string, code: string | null): Error {
  return code !== null && code.startsWith('SQLITE_') ? new Database.SqliteError(message, code) : new Error(message);
}

export class ReaderThread {
  private readonly worker: Worker;
  private waiting: Waiting | null = null;
  /** A query's transaction is open in the worker (its first step was sent, its end not yet). */
  private inQuery = false;
  /** The worker opened its connection (its `ready` came). */
  started = false;
  /** The thread ended (or is ending): no message is sent to it any more. */
  ended = false;
  private closing = false;
  private lastError: unknown = null;
  /** Settles when the connection is open; rejects when the worker ended before that. */
  readonly ready: Promise<void>;
  /** Settles once the thread has exited. */
  readonly exited: Promise<void>;

  constructor(
    options: ReaderOptions,
    /** Called once when the thread ends without being closed (it crashed, or was ended from outside). */
    private readonly onLost: (reader: ReaderThread, reason: string) => void,
  ) {
    const data: ReadWorkerData = {
      driver: DRIVER,
      path: options.path,
      nativeBinding: options.nativeBinding ?? null,
      busyTimeoutMs: Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000)),
    };
    // Starting, and answering a read (`hold`), a reader keeps the process alive; idle, it does not.
    this.worker = new Worker(READ_WORKER_SOURCE, { eval: true, workerData: data, name: 'hivewatch-reader' });
    let markReady: () => void = () => undefined;
    let failStart: (error: unknown) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    // Nobody may be waiting on `ready` when a replacement fails to start: that is reported through onLost.
    this.ready.catch(() => undefined);
    this.exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: FromReader) => {
      if (message.kind === 'ready') {
        this.started = true;
        if (!this.inQuery) this.worker.unref();
        markReady();
        return;
      }
      const waiting = this.waiting;
      this.waiting = null;
      if (message.kind === 'rows') waiting?.resolve(message.rows);
      else waiting?.reject(statementError(message.message, message.code));
    });
    this.worker.on('error', (error) => {
      this.lastError = error;
    });
    this.worker.on('exit', (code) => {
      this.ended = true;
      const reason = this.lastError instanceof Error ? this.lastError.message : `exit code ${code}`;
      if (!this.started) failStart(this.lastError ?? new Error(`the read worker exited before opening the database (${reason})`));
      const waiting = this.waiting;
      this.waiting = null;
      if (this.closing) {
        waiting?.reject(new StoreError('closed', 'the store is closed'));
        return;
      }
      waiting?.reject(
        new StoreError(
          'unavailable',
          `the read worker answering this read stopped (${reason}); the read was not answered, and a new worker takes the next one`,
          {
            cause: this.lastError ?? undefined,
          },
        ),
      );
      this.onLost(this, reason);
    });
  }

  /** The worker's thread id (what `worker_threads` names it by). */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** A read is in flight: the process stays up until it is answered. */
  hold(): void {
    this.worker.ref();
  }

  /** One statement of the current query, answered with its rows (`all`) or first row (`get`). */
  step(step: SqlStep): Promise<unknown> {
    const mode = step.mode;
    if (mode === 'run') {
      return Promise.reject(new StoreError('invalid_argument', `a read may not write; refused: ${step.sql.slice(0, 80)}`, { code: 'SYSTEM_INTERNAL' }));
    }
    if (this.ended) return Promise.reject(new StoreError('unavailable', 'the read worker answering this read stopped; the read was not answered'));
    const first = !this.inQuery;
    this.inQuery = true;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.post({ kind: 'step', first, mode, sql: step.sql, params: step.params });
    });
  }

  /** The current query is over: its read transaction ends, and the reader no longer holds the process. */
  end(): void {
    if (this.inQuery) this.post({ kind: 'end' });
    this.inQuery = false;
    if (!this.ended && this.started) this.worker.unref();
  }

  /** Ends the thread after its connection is closed; a step in flight is rejected as `closed`. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.ended) {
      this.post({ kind: 'close' });
      // Closing waits for the thread, so nothing of it outlives the store.
      this.worker.ref();
    }
    await this.exited;
  }

  /** Ends the thread at once, as a crash would (for tests of a lost worker and for stuck threads). */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private post(message: ToReader): void {
    if (!this.ended) this.worker.postMessage(message);
  }
}
