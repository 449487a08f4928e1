import { toHivewatchError, type HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Clock } from '../../base/clock.js';
import type { EventSink, HivewatchEvent, HivewatchEventBody } from '../../base/events.js';
import type { Redactor } from '../../runtimes/secrets/secrets.js';
import type { FailureChain } from '../interpret/failure-chain.js';

/**
 * A run's journal boundary: every event the run emits gets the run's id, the next seq and the
 * clock's time here, with the flow's agents' secrets redacted (no secret crosses this line), goes
 * to the sink and then to the live listeners. Seqs are assigned in emit order, one writer per run,
 * so the journal's order is the order the run decided things in.
 */
export class RunJournal {
  private seq = 0;
  private readonly listeners = new Set<(event: HivewatchEvent) => void>();

  constructor(
    private readonly runId: string,
    private readonly clock: Clock,
    private readonly sink: EventSink,
    private readonly secrets: Redactor,
  ) {}

  /** Events as they are appended, for live views; the sink remains the record. */
  onEvent(listener: (event: HivewatchEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Journals an event and returns its seq for failure chains. */
  emit(body: HivewatchEventBody): number {
    const event = { runId: this.runId, seq: ++this.seq, ts: this.clock.now(), ...this.secrets.deep(body) } as HivewatchEvent;
    this.sink.append(event);
    for (const listener of this.listeners) listener(event);
    return event.seq;
  }

  /** A text with the flow's agents' secrets redacted, for what a task journals of its attempts. */
  redact(text: string): string {
    return this.secrets.text(text);
  }

  /** The errorOccurred of a chain's head (a throw, or a failure of the run itself); the head's occurrence gets its seq. */
  emitError(chain: FailureChain, caught: boolean): void {
    const error = chain.envelope();
    chain.head.occurrence.seq = this.emit({ type: 'errorOccurred', error, caught, retrying: false, step: error.correlation.step, ordinal: null, taskId: null });
  }

  flush(): Promise<void> {
    return this.sink.flush();
  }

  /**
   * The last flush of a run. A journal that cannot be written must not give the run a second
   * ending (a write failure caught by start() after runCompleted): the terminal events stay
   * buffered in the sink and the result says they are not on disk yet.
   */
  async flushTerminal(): Promise<HivewatchError | null> {
    try {
      await this.sink.flush();
      return null;
    } catch (error) {
      return toHivewatchError(error);
    }
  }
}
