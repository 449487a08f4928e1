import type { ErrorEnvelope } from '../errors/envelope.js';

/**
 * A run's own events: how it starts (the options it ran with, where an external run comes from),
 * every error occurrence in it, the cancel commands, and how it ends (rule 16: its ending error
 * with the chain of causes). Who owns which event: core/base/events/README.md.
 */

export interface RunOptionsSnapshot {
  maxSteps: number;
  concurrency: number;
  clock: 'real' | 'virtual';
  defaultAgent: string | null;
}

/** The events of the run as a whole. */
export type RunEventBody =
  | {
      type: 'runStarted';
      flow: string;
      flowName: string;
      options: RunOptionsSnapshot;
      resumedFrom: string | null;
      retryOf: string | null;
      /** On resume: the checkpoint step the run continues after (0 when none). */
      resumeStep: number;
      /** The engine semantics the run follows (resume.ts `ENGINE_SEMANTICS`); absent in journals older than the field (1). */
      semantics?: number;
      /** `sha256:<hex>` of the flow's text (digest.ts); absent in journals older than the field. */
      flowDigest?: string;
      /** The flow's text as it ran, so the journal shows what was run even after the file changed. */
      flowText?: string;
      /** A run Hivewatch did not execute: an agent's session seen through its telemetry (core/otel). */
      external?: ExternalRunSource;
      /**
       * How many steps the flow takes (core/flow/plan/step-count.ts): `expected` when no session
       * fails, `most` with every catch block run; null when timing decides it; absent in journals
       * older than the field and for external runs.
       */
      flowSteps?: { expected: number; most: number } | null;
    }
  | {
      type: 'errorOccurred';
      error: ErrorEnvelope;
      /** A try/catch or a continue/ignore parallel of the flow handles it. */
      caught: boolean;
      /** Another attempt follows. */
      retrying: boolean;
      step: number | null;
      ordinal: number | null;
      taskId: string | null;
    }
  /** `forced`: a second cancel while cancelling, which SIGKILLs what still runs (rule 18); a third changes nothing. */
  | { type: 'cancelRequested'; commandId: string; reason: string; alreadyCancelling: boolean; forced?: boolean }
  | { type: 'runCancelling'; epoch: number; commandId: string }
  | { type: 'runCompleted'; steps: number }
  /**
   * `error` is the run's ending error (rule 16), its envelope's `cause` nesting the chain. `chain`
   * lists the same links flat, head first, each with the seq of its own `errorOccurred` in this
   * run, so the store can settle every occurrence's disposition (rule 17); absent in journals
   * written before the failure model (the store then derives it from `error`).
   */
  | { type: 'runFailed'; error: ErrorEnvelope; chain?: FailureLink[] }
  | {
      type: 'runCancelled';
      cause: { commandId: string; reason: string };
      correlation: { run: string; step: number | null; epoch: number };
      /** A forced cancel (a second cancel while cancelling, rule 18): in-flight agents got SIGKILL at once. */
      forced?: boolean;
    }
  /**
   * Written by the store on start-up for a run whose host died; not by the engine. `processes`:
   * what recovery did with each attempt process group the dead host left (absent: none known).
   */
  | { type: 'runInterrupted'; error: ErrorEnvelope; processes?: LeftoverProcessGroup[] };

/**
 * One link of an ending error's cause chain (rule 16), head (the ending error) first, root
 * cause last. `how` says how this link led to the next one: `retry-limit` (the retry policy gave
 * up after the next link, the last attempt's error), `thrown-in-catch` (a `throw "message"` in the
 * catch that handled the next link), `finally-failed` (a `finally` failed while the next link was
 * pending), `cleanup-failed` (this link killed a fail-fast parallel, and the next one is the
 * failure of a `finally` that a branch it cancelled ran while unwinding, F5: it follows the
 * killing failure, it did not cause it); null on the root. `rethrown`: a bare `throw` carried
 * this link on.
 */
export interface FailureLink {
  /** The seq of this link's `errorOccurred` in the run's journal; null when none was journaled. */
  seq: number | null;
  code: string;
  category: string;
  origin: string;
  message: string;
  step: number | null;
  taskId: string | null;
  attempt: number | null;
  how: 'retry-limit' | 'thrown-in-catch' | 'finally-failed' | 'cleanup-failed' | null;
  rethrown?: boolean;
}

/** Where an external run comes from (docs/otel.md). */
interface ExternalRunSource {
  /** `runtime:claude-code` / `runtime:codex-cli` (or `runtime:<service.name>`). */
  origin: string;
  /** The CLI's session id (`session.id`, Codex `conversation.id`). */
  sessionId: string;
  /** What sent it: `service.name` and version as the telemetry's resource names them. */
  source: string;
  /** Set when Hivewatch ran the CLI itself: the attempt whose process sent this telemetry. */
  parent?: { runId: string; taskId: string; attempt: number };
  /** Set when the session is a subagent: the run of the agent that started it (docs/otel.md "Subagents"). */
  spawnedBy?: SpawnedBy;
}

/** The agent that started a subagent's run: its run, and the subagent's own id and kind as the CLI named them. */
export interface SpawnedBy {
  runId: string;
  agentId: string;
  agentName: string | null;
}

type LeftoverOutcome =
  /** The start time matched: the group was sent SIGKILL. */
  | 'ended'
  /** Nothing of the group runs any more. */
  | 'gone'
  /** The pid now belongs to another process (its start time differs): left alone. */
  | 'notOurs'
  /** Could not be checked (no /proc, no start time recorded, leader gone): left alone. */
  | 'unverified'
  /** Spawned on another machine: not reachable from here. */
  | 'otherHost';

export interface LeftoverProcessGroup {
  taskId: string;
  attempt: number;
  pgid: number;
  outcome: LeftoverOutcome;
  message: string;
}
