import type { EventSink, HivewatchEvent } from '../../base/events.js';

/** Keeps every event in memory: tests, and the CLI's summary. */
export class MemorySink implements EventSink {
  readonly events: HivewatchEvent[] = [];

  append(event: HivewatchEvent): void {
    this.events.push(event);
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Sends every event to several sinks, in order; durable once all of them are. */
export class FanoutSink implements EventSink {
  constructor(private readonly sinks: readonly EventSink[]) {}

  append(event: HivewatchEvent): void {
    for (const sink of this.sinks) sink.append(event);
  }

  async flush(): Promise<void> {
    await Promise.all(this.sinks.map((sink) => sink.flush()));
  }
}
