import type { AgentWorkEventBody } from './events/agent-work-events.js';
import type { AttemptEventBody } from './events/attempt-events.js';
import type { ExternalEventBody } from './events/external-events.js';
import type { RunEventBody } from './events/run-events.js';
import type { StepEventBody } from './events/step-events.js';
import type { TaskEventBody } from './events/task-events.js';

export type { AttemptEndTrace } from './events/attempt-events.js';
export type { FailureLink, LeftoverProcessGroup, RunOptionsSnapshot, SpawnedBy } from './events/run-events.js';

/**
 * The event contract: the engine's only output, the journal's rows, the UI's stream. Every
 * projection (runs, steps, tasks, attempts, errors, rollups) is derived from these. The events
 * are written by role in events/ (the run's, a step's, a task's, an attempt's, agent work's, an
 * external run's); this module assembles them into the one union every reader imports.
 */

interface EventBase {
  runId: string;
  /** 1, 2, 3, ... per run, without gaps. */
  seq: number;
  /** Milliseconds since the epoch, from the run's clock (virtual or real). */
  ts: number;
}

export type HivewatchEventBody = RunEventBody | StepEventBody | TaskEventBody | AttemptEventBody | AgentWorkEventBody | ExternalEventBody;

export type HivewatchEvent = EventBase & HivewatchEventBody;
type EventType = HivewatchEvent['type'];
export type EventOf<T extends EventType> = Extract<HivewatchEvent, { type: T }>;

export const TERMINAL_EVENT_TYPES = ['runCompleted', 'runFailed', 'runCancelled', 'runInterrupted'] as const;

export function isTerminalEvent(event: HivewatchEvent): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}

export const RunStatus = {
  queued: 'queued',
  running: 'running',
  cancelling: 'cancelling',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
} as const;
export type RunStatus = (typeof RunStatus)[keyof typeof RunStatus];

/** Where the engine's events go. `append` is synchronous and ordered; `flush` makes them durable. */
export interface EventSink {
  append(event: HivewatchEvent): void;
  /** Resolves once everything appended so far is durable. The engine awaits it between steps. */
  flush(): Promise<void>;
}
