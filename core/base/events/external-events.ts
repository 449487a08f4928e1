import type { ErrorEnvelope } from '../errors/envelope.js';
import type { FailureLink, SpawnedBy } from './run-events.js';
import type { TaskRef } from './task-events.js';

/**
 * The events only an external run has: an agent's session Hivewatch did not execute, seen through
 * its telemetry (core/otel, docs/otel.md). Its start and end are the run events every run has.
 */

export type ExternalEventBody =
  /**
   * A telemetry event of an external run that has no other Hivewatch event (a tool decision, a
   * successful tool result) or that Hivewatch does not know (`known: false`): kept and shown.
   */
  | { type: 'externalEvent'; name: string; known: boolean; taskId: string | null; attributes: Record<string, unknown> }
  /**
   * An external run sent nothing for `quietMs`: it ends until events resume, `completed`, or
   * `failed` with `error` (and its `chain`, as runFailed's) when its last prompt failed.
   * `endedWith`: it was sent from inside this Hivewatch attempt, which ended: it ends with it
   * rather than after the quiet period.
   */
  | {
      type: 'externalRunIdle';
      quietMs: number;
      lastEventAt: number;
      error?: ErrorEnvelope;
      chain?: FailureLink[];
      endedWith?: { runId: string; taskId: string; attempt: number };
    }
  /** Events resumed after `externalRunIdle`: the run is running again. */
  | { type: 'externalRunReopened'; idleSince: number }
  /**
   * Telemetry named the agent that started this external run after the run had started (Codex
   * reports a spawned thread's parent in a record of its own, which may come after the thread's
   * first records): from now on the run is that agent's subagent, as if runStarted had said so,
   * named `flowName` as a subagent's run started linked is.
   */
  | { type: 'externalRunSpawned'; spawnedBy: SpawnedBy; flowName?: string }
  /**
   * An external session's request failed with a subscription usage limit whose reset the CLI
   * reported (`reported`: its words; `resetAt`: read from them): the session is stopped until
   * then. Hivewatch cannot restart an external CLI; telemetry from it again lifts the stop
   * (docs/otel.md "Usage limits of external sessions").
   */
  | (TaskRef & { type: 'externalLimitReached'; attempt: number; resetAt: number; reported: string })
  /** Telemetry came again from a session stopped by its usage limit (before or after the reset): it runs again. */
  | (TaskRef & { type: 'externalLimitLifted'; resetAt: number });
