import type { HivewatchEvent } from '../../base/events.js';
import type { Refusal } from './sink-refusals.js';

/** What a sink holds that is appended and not yet written (in append order), and whose runs it keeps. */
export class SinkBuffer {
  // Appended events not yet written, in chunks of at most maxBatch: taking a batch is O(1) however
  // large a storm's backlog (slicing one array per batch was quadratic).
  readonly chunks: HivewatchEvent[][] = [];
  size = 0;
  /** Events ever appended, and each buffered event's place among them (what a flush waits for). */
  private appended = 0;
  private readonly appendOrder = new WeakMap<HivewatchEvent, number>();
  /** Runs whose journal was ended because the database refused their events, with that error. */
  readonly refused = new Map<string, Refusal>();
  /** The events that end a refused run (kept, unlike everything else of the run appended later). */
  readonly endings = new WeakSet<HivewatchEvent>();
  /** Runs another host took (RunTakenError): nothing more of theirs is written. */
  readonly dropped = new Set<string>();

  constructor(readonly maxBatch: number) {}

  get appendedCount(): number {
    return this.appended;
  }

  kept(event: HivewatchEvent): boolean {
    return !this.dropped.has(event.runId) && (!this.refused.has(event.runId) || this.endings.has(event));
  }

  /** Whether events of this run are still journaled (not refused, not taken by another host). */
  accepts(runId: string): boolean {
    return !this.refused.has(runId) && !this.dropped.has(runId);
  }

  push(event: HivewatchEvent): void {
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || last.length >= this.maxBatch) this.chunks.push((last = []));
    last.push(event);
    this.size += 1;
    this.appendOrder.set(event, this.appended++);
  }

  drop(runIds: readonly string[]): void {
    for (const runId of runIds) this.dropped.add(runId);
    const left = this.chunks.flat().filter((event) => this.kept(event));
    this.chunks.length = 0;
    for (let i = 0; i < left.length; i += this.maxBatch) this.chunks.push(left.slice(i, i + this.maxBatch));
    this.size = left.length;
  }

  putBack(events: readonly HivewatchEvent[]): void {
    if (events.length === 0) return;
    this.chunks.unshift([...events]);
    this.size += events.length;
  }

  take(): HivewatchEvent[] | null {
    for (let chunk = this.chunks.shift(); chunk !== undefined; chunk = this.chunks.shift()) {
      this.size -= chunk.length;
      const batch = this.refused.size === 0 && this.dropped.size === 0 ? chunk : chunk.filter((event) => this.kept(event));
      if (batch.length > 0) return batch;
    }
    return null;
  }

  /**
   * Whether everything appended before append number `target` is out of the buffer. A failed
   * write puts its events back in front, in append order: once the first buffered event was
   * appended at or after `target`, everything before it is committed (or dropped with its run).
   */
  writtenUpTo(target: number): boolean {
    const first = this.chunks[0]?.[0];
    return first === undefined || (this.appendOrder.get(first) ?? target) >= target;
  }
}
