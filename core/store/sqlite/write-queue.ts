import type Database from 'better-sqlite3';
import type { HivewatchEvent } from '../../base/events.js';

type Stmt = Database.Statement;

/**
 * The writes of a batch, in the order they run: the journal rows (events and their serialised
 * payloads), then statements with their parameters (an array binds as the anonymous parameters).
 */
export class WriteQueue {
  private events: HivewatchEvent[] = [];
  private payloads: string[] = [];
  private walls: (number | null)[] = [];
  private statements: Stmt[] = [];
  private params: unknown[][] = [];

  /** The commit sequence numbers the events written by `run` got, in order (read after commit). */
  commitSeqs: number[] = [];

  constructor(
    private readonly insertEvent: Stmt,
    private readonly claimCommitSeqs: Stmt,
  ) {}

  /** `wall` is null when it equals the event's ts (a real clock: nothing more to store). */
  addEvent(event: HivewatchEvent, payload: string, wall: number | null): void {
    this.events.push(event);
    this.payloads.push(payload);
    this.walls.push(wall);
  }

  add(statement: Stmt, params: unknown[]): void {
    this.statements.push(statement);
    this.params.push(params);
  }

  run(): void {
    const { events, payloads, walls, statements, params, insertEvent } = this;
    if (events.length > 0) {
      // Inside the write transaction: the counter's order is the order of commit (one writer at a time).
      const last = (this.claimCommitSeqs.get(events.length) as { commit_seq: number }).commit_seq;
      const first = last - events.length + 1;
      for (let i = 0; i < events.length; i += 1) {
        const e = events[i] as HivewatchEvent;
        insertEvent.run(e.runId, e.seq, e.type, e.ts, payloads[i], walls[i], first + i);
        this.commitSeqs.push(first + i);
      }
    }
    for (let i = 0; i < statements.length; i += 1) (statements[i] as Stmt).run(params[i]);
    this.clear();
  }

  /** Empties the queue (fresh arrays: what it held becomes garbage at once). */
  clear(): void {
    if (this.events.length > 0) {
      this.events = [];
      this.payloads = [];
      this.walls = [];
    }
    if (this.statements.length > 0) {
      this.statements = [];
      this.params = [];
    }
  }
}
