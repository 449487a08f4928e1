import type { HivewatchEvent } from '../../core/service/api.js';

/**
 * Exactly-once, in-order delivery of one run's events. Events arrive from the live stream and
 * from catch-up reads (getEvents afterSeq), possibly twice and possibly with holes; the sequencer
 * releases them strictly as seq = last + 1, last + 2, ... and says when a hole needs a catch-up.
 */
export class RunSequencer<E extends HivewatchEvent = HivewatchEvent> {
  private readonly waiting = new Map<number, E>();

  /** @param last the seq already applied (0: nothing yet). */
  constructor(public last: number) {}

  /** Offers events (any order, duplicates allowed); returns the ones now ready, in seq order. */
  offer(events: Iterable<E>): E[] {
    for (const event of events) {
      if (event.seq > this.last && !this.waiting.has(event.seq)) this.waiting.set(event.seq, event);
    }
    const ready: E[] = [];
    for (let next = this.waiting.get(this.last + 1); next; next = this.waiting.get(this.last + 1)) {
      this.waiting.delete(next.seq);
      ready.push(next);
      this.last = next.seq;
    }
    return ready;
  }

  /** Events are held back behind a hole: fetch `afterSeq: last` to fill it. */
  get hasGap(): boolean {
    return this.waiting.size > 0;
  }

  get held(): number {
    return this.waiting.size;
  }

  /** Moves the position forward (a fresher snapshot was loaded), dropping what it covers. */
  advanceTo(seq: number): void {
    if (seq <= this.last) return;
    this.last = seq;
    for (const s of [...this.waiting.keys()]) if (s <= seq) this.waiting.delete(s);
  }
}
