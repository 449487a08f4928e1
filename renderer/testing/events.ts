import type { ErrorEnvelope, HivewatchEvent } from '../../core/service/api.js';

/**
 * Builders of journal events for the renderer's tests and for the synthetic backend of the
 * performance script. They follow the engine's event contract (core/base/events.ts).
 */

type Body = HivewatchEvent extends infer E ? (E extends HivewatchEvent ? Omit<E, 'runId' | 'seq' | 'ts'> : never) : never;

export function envelope(code: string, overrides: Partial<ErrorEnvelope> = {}): ErrorEnvelope {
  const category = (overrides.category ?? code.split('_')[0]?.toLowerCase() ?? 'runtime') as ErrorEnvelope['category'];
  return {
    category,
    code: code as ErrorEnvelope['code'],
    message: overrides.message ?? `${code.toLowerCase().replace(/_/g, ' ')}`,
    origin: overrides.origin ?? 'runtime:fake',
    recoverable: overrides.recoverable ?? true,
    recovery_hint: overrides.recovery_hint ?? null,
    context: overrides.context ?? {},
    timestamp: overrides.timestamp ?? 0,
    correlation: overrides.correlation ?? { project: null, flow: null, run: null, step: null, task: null, attempt: null },
  };
}

/** A run's journal under construction: each `add` stamps the next seq and the given time. */
export class JournalBuilder {
  readonly events: HivewatchEvent[] = [];
  constructor(
    readonly runId: string,
    public ts: number,
  ) {}

  add(body: Body, atTs = this.ts): HivewatchEvent {
    this.ts = atTs;
    const event = { ...body, runId: this.runId, seq: this.events.length + 1, ts: atTs } as HivewatchEvent;
    this.events.push(event);
    return event;
  }

  start(flow = 'examples/01-happy-path.prose', maxSteps = 100): HivewatchEvent {
    return this.add({
      type: 'runStarted',
      flow,
      flowName: flow.replace(/^.*\//, '').replace(/\.prose$/, ''),
      options: { maxSteps, concurrency: 4, clock: 'virtual', defaultAgent: null },
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
    });
  }
}
