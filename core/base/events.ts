import type { ErrorEnvelope } from './errors/envelope.js';
import type { TokenUsage } from './usage.js';

/**
 * The event contract: the engine's only output, the journal's rows, the UI's stream. Every
 * projection (runs, steps, tasks, attempts, errors, rollups) is derived from these.
 */

interface EventBase {
  runId: string;
  /** 1, 2, 3, ... per run, without gaps. */
  seq: number;
  /** Milliseconds since the epoch, from the run's clock (virtual or real). */
  ts: number;
}

interface TaskRef {
  step: number;
  ordinal: number;
  taskId: string;
}

export interface RunOptionsSnapshot {
  maxSteps: number;
  concurrency: number;
  clock: 'real' | 'virtual';
  defaultAgent: string | null;
}

export type HivewatchEventBody =
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
  | { type: 'stepStarted'; step: number; frontier: { ordinal: number; taskId: string; name: string }[] }
  | (TaskRef & {
      type: 'taskStarted';
      /**
       * The task's prompt as its attempts run it, filled in and shortened (core/flow/check/specs.ts
       * `sessionTitle`); in journals older than `template`, the prompt as written.
       */
      name: string;
      /** The prompt as the flow wrote it, when `name` filled in values; absent when the two are the same. */
      template?: string;
      agent: string;
      maxAttempts: number;
    })
  | (TaskRef & {
      type: 'attemptStarted';
      attempt: number;
      /** The previous attempt's failure as given to this one; absent on first attempts. */
      feedback?: string;
      /**
       * What the attempt was asked (attempt-trace.ts): the rendered prompt, or for a
       * runtime that runs the operator's command line its argv. Bounded, env values redacted;
       * absent in journals older than the fields.
       */
      prompt?: string;
      argv?: string[];
    })
  /**
   * The attempt's subprocess, journaled as soon as it is spawned: it leads its own process group
   * (pgid = pid), and `startTime` (field 22 of /proc/<pid>/stat, null without /proc) tells it
   * from a later process given the same pid. Start-up recovery ends the group of an attempt a
   * dead host left running on this `hostname`. `telemetry`: the origin (`runtime:<agent>`) whose
   * exporter the child was started with, pointed at this host's receiver (a preset with the receiver
   * on); from then on its silence is watched (docs/otel.md "Telemetry health"). Absent otherwise.
   */
  | (TaskRef & { type: 'attemptProcess'; attempt: number; pid: number; startTime: string | null; hostname: string; telemetry?: string })
  /** After the attempt's group was ended its output pipes stayed open: a process outside the group (setsid) outlives the attempt. */
  | (TaskRef & { type: 'attemptProcessEscaped'; attempt: number; pid: number; message: string })
  /**
   * `trace`: the agent's output and how its process ended, bounded (attempt-trace.ts); absent when the runtime reported neither.
   * `usage`: the tokens and cost the agent reported for this attempt; absent when it reported none.
   */
  | (TaskRef & { type: 'attemptSucceeded'; attempt: number; durationMs: number; trace?: AttemptEndTrace; usage?: TokenUsage })
  /**
   * Journaled the moment the attempt ends, whatever its siblings do (a fact). `awaiting`: on a
   * task's last failure, the lower tasks of its step (task ids) that could still cancel it (rule 6)
   * and had not ended yet; whether the failure counts comes once they have: `errorOccurred` when it
   * does, `attemptJudgedCancelled` when it does not. Absent when nothing was awaited. Which tasks
   * had ended is timing, so the canonical journal leaves it out (core/engine/model/canonical.ts).
   */
  | (TaskRef & {
      type: 'attemptFailed';
      attempt: number;
      durationMs: number;
      error: ErrorEnvelope;
      trace?: AttemptEndTrace;
      usage?: TokenUsage;
      awaiting?: string[];
    })
  | (TaskRef & {
      type: 'retryScheduled';
      attempt: number;
      delayMs: number;
      strategy: string;
      nextAttemptAt: number;
      /** Why the delay is not the policy's own (a runtime's reset time); absent when the policy explains it. */
      reason?: string;
      /**
       * The failure was a subscription usage limit: the line the CLI printed
       * and the reset instant read from it (epoch ms, null when unreadable), as reported;
       * `movedFrom`: the reset the task waited for before, when the CLI now names another. The
       * wait itself is `nextAttemptAt` (the reset, capped: docs/presets.md "Usage limits").
       */
      usageLimit?: { reported: string; resetAt: number | null; movedFrom?: number };
    })
  | (TaskRef & { type: 'backoffSkipped'; attempt: number; commandId: string })
  | (TaskRef & { type: 'taskSucceeded'; attempts: number; output: string })
  | (TaskRef & {
      type: 'taskFailed';
      attempts: number;
      error: ErrorEnvelope;
      cancelled: boolean;
      /**
       * For a cancelled task that had already finished when the cancel (of the run, or of a
       * failed fail-fast sibling) reached it: what it finished with. On the record only; the
       * step treats the task as cancelled.
       */
      settled?: { outcome: 'succeeded' } | { outcome: 'failed'; error: ErrorEnvelope };
    })
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
  | { type: 'writeApplied'; step: number; channel: string; ordinal: number | null; value: unknown }
  | {
      type: 'checkpointSaved';
      step: number;
      /**
       * With `delta`: the channels this step changed, at their new values; the state after the
       * step is the previous checkpoint's with these laid over it. Without it (the first
       * checkpoint of a resumed run, and every checkpoint of journals from before deltas): the
       * whole state. So a journal grows with what a run produced, not with steps × state.
       */
      channels: Record<string, unknown>;
      delta?: boolean;
    }
  | { type: 'stepFinished'; step: number }
  /** `forced`: a second cancel while cancelling, which SIGKILLs what still runs (rule 18); a third changes nothing. */
  | { type: 'cancelRequested'; commandId: string; reason: string; alreadyCancelling: boolean; forced?: boolean }
  | { type: 'runCancelling'; epoch: number; commandId: string }
  | (TaskRef & {
      type: 'receiptIgnoredStale';
      attempt: number;
      epoch: number;
      currentEpoch: number;
      outcome: 'succeeded' | 'failed';
      /** What the stale result carried (bounded like an attempt trace); absent in older journals. */
      output?: string;
      error?: ErrorEnvelope;
    })
  /**
   * An attempt stopped because a fail-fast sibling failed (rule 18: cancelled-by-sibling, not an
   * error of its own). `reported`: what the attempt answered when it ended anyway (a result that
   * raced the cancel), kept on the record and acted on by nothing; no errorOccurred is journaled.
   */
  | (TaskRef & {
      type: 'attemptCancelled';
      attempt: number;
      durationMs: number;
      by: 'sibling';
      reported?: { outcome: 'succeeded'; output?: string } | { outcome: 'failed'; error: ErrorEnvelope };
    })
  /**
   * A judgment, not an end: the task's last attempt had already ended failed (its `attemptFailed`
   * is the fact) and the step counts the task as cancelled by a lower sibling whose failure killed
   * a fail-fast parallel around it (rules 6, 18). The failure is not an error of its own: no
   * `errorOccurred` follows. Rarely it follows one: a lower sibling's system error, which escapes
   * continue and ignore parallels (rule 14b), may cancel a task whose failure already counted;
   * that occurrence stays on the record, handled (docs/semantics.md F7).
   */
  | (TaskRef & { type: 'attemptJudgedCancelled'; attempt: number; by: 'sibling' })
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
  /** The run's place in a repository (agent work): its branch starts at `base`. */
  | { type: 'workspaceReady'; repo: string; branch: string; base: string; worktreeDir: string }
  /** What an attempt changed against its start, and what of it lies outside the session's scope. */
  | (TaskRef & { type: 'attemptChanges'; attempt: number; changed: { path: string; status: string }[]; diffStat: string; outsideScope: string[] })
  /** A `setup:` or `verify:` command's end, in the attempt's worktree. */
  | (TaskRef & {
      type: 'checkFinished';
      attempt: number;
      /** `setup`, or the check's name. */
      name: string;
      kind: 'setup' | 'check' | 'verifier';
      ok: boolean;
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      durationMs: number;
      outputTail: string;
    })
  /** A successful attempt's changes, committed on the task's branch. */
  | (TaskRef & { type: 'attemptCommitted'; attempt: number; commit: string; branch: string })
  /** Commit-scoped: the step's task commits merged into the run's branch in ordinal order. */
  | { type: 'branchMerged'; step: number; branch: string; head: string; merged: { taskId: string; commit: string }[] }
  /**
   * Written by the store on start-up for a run whose host died; not by the engine. `processes`:
   * what recovery did with each attempt process group the dead host left (absent: none known).
   */
  | { type: 'runInterrupted'; error: ErrorEnvelope; processes?: LeftoverProcessGroup[] }
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

/**
 * How an attempt's process ended, as journaled on its end event: bounded by the engine before it is
 * emitted (core/engine/attempt-trace.ts keeps the budgets and the redaction).
 */
export interface AttemptEndTrace {
  /** The agent's answer (a successful runtime result, also when agent work failed it afterwards). */
  output?: string;
  exitCode: number | null;
  signal: string | null;
  stdoutTail: string;
  stderrTail: string;
}
