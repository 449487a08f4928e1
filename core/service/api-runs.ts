import type { ErrorEnvelope } from '../base/errors/envelope.js';
import type { HivewatchEvent, RunStatus } from '../base/events.js';
import type { TokenUsage } from '../base/usage.js';
import type { RunEnding } from '../common/ending-chain.js';
import type { LoadedRunSummary } from '../common/run-summary-fields.js';
import type { TelemetrySilence } from '../common/telemetry-silence.js';
import type { UsageView } from './api-usage.js';
import type { AgentTreeView } from './api-agents.js';

/**
 * A run as the API shows it: its summary in the Runs list, and its detail (steps, tasks,
 * attempts, the journal). Types only; callers import them from api.ts.
 */

export interface RunTelemetrySilence extends TelemetrySilence {
  /** A preset attempt's: which attempt's CLI went silent; null for a session's own run. */
  taskId: string | null;
  attempt: number | null;
}

/**
 * A run in the Runs list. Its shared fields (flow, status, times, step, attempts, approval, the
 * last error...) are defined once, with what each means, in core/common/run-summary-fields.ts,
 * where the service's mapping and the window's live rows both read them; these are the rest.
 */
export interface RunSummary extends LoadedRunSummary {
  id: string;
  /** Set while a task waits in backoff: the "retrying" badge and its countdown. */
  retrying: { taskId: string; nextAttemptAt: number; delayMs: number } | null;
  /**
   * Set while a task waits out a subscription usage limit: when its next
   * attempt starts, the reset (capped, docs/presets.md "Usage limits"). The `waiting-limit` state.
   * Always present from the service (null when not waiting); optional for older producers.
   */
  waitingUntil?: number | null;
  /**
   * Set while the run's telemetry source (its session, or the CLI of a preset attempt still
   * running) has sent nothing for longer than twice its exporter's interval (docs/otel.md
   * "Telemetry health"): "no telemetry for 4 min (expected every 5 s)". Absent otherwise.
   */
  telemetrySilence?: RunTelemetrySilence;
  /**
   * Why the run ended (rule 16): set for a run that ended `failed` or `cancelled` (and
   * `interrupted`), null otherwise. This, not `lastError`, is what "why did it fail" shows.
   */
  endingError: EndingError | null;
  /**
   * Where an external run comes from (an agent session seen through its telemetry: `runtime:claude-code`,
   * `runtime:codex-cli`); absent for the runs Hivewatch executes. An external run cannot be cancelled from here.
   */
  source?: string;
  /** Tokens and cost its attempts reported; null when none reported any. */
  usage?: UsageView | null;
  /** A subagent's run: the run of the agent that started it (the Runs list folds it under that run). */
  spawnedBy?: string | null;
  /** How many subagent runs this run started (0 or absent: none). */
  subagents?: number;
  /**
   * The journal position this summary was read at: the seq of the run's last event it reflects,
   * so a live reader follows the run from there without reading its detail (listRuns, getRun).
   * Absent on a summary the window keeps up from live events.
   */
  lastSeq?: number;
}

/** A run's ending error: its head link's fields, where it happened, and the whole chain (core/common/ending-chain.ts). */
export type EndingError = RunEnding;

export type AttemptStatus = 'running' | 'succeeded' | 'failed' | 'cancelled' | 'stale';

/** What an attempt answered after it was stopped: a result that raced a sibling's cancel, or one after the operator's (rule 12). */
export type LateResult = { outcome: 'succeeded'; output?: string } | { outcome: 'failed'; error?: ErrorEnvelope };

export interface AttemptView {
  attempt: number;
  startedAt: number;
  endedAt: number | null;
  status: AttemptStatus;
  error: ErrorEnvelope | null;
  /** The backoff journaled after this attempt, if another attempt followed. */
  delayAfterMs: number | null;
  strategy: string | null;
  nextAttemptAt: number | null;
  /** Present when a fail-fast sibling's failure stopped it (rule 18): cancelled, not an error of its own. */
  cancelledBy?: 'sibling';
  /** Present when it answered after it was stopped; acted on by nothing. */
  lateResult?: LateResult;
  /**
   * The agent CLI's own telemetry sent from inside this attempt: its session's
   * external run, with the API calls and errors (the CLI's internal retries) it reported.
   */
  telemetry?: AttemptTelemetry[];
  /** The tokens and cost the agent reported for this attempt; absent when it reported none. */
  usage?: TokenUsage;
}

export interface AttemptTelemetry {
  runId: string;
  sessionId: string;
  origin: string;
  /** The API requests the CLI reported (each try it made again included). */
  apiCalls: number;
  /** Those that failed, and failed tools: shown here, never counted as failures of their own. */
  errors: number;
  /** Each reported request in order: its outcome and, when it failed, its code and message. */
  calls?: {
    n: number;
    /** `open`: a request nothing has answered yet (a stream in flight). */
    status: 'succeeded' | 'failed' | 'open';
    code: string | null;
    message: string | null;
  }[];
}

export type TaskStatus = 'running' | 'waiting' | 'succeeded' | 'failed' | 'cancelled';

export interface TaskView {
  taskId: string;
  step: number;
  ordinal: number;
  /** Its prompt as its attempts ran it, the template filled in, shortened (in runs journaled before, as written). */
  name: string;
  /** The prompt as the flow wrote it, when `name` filled in values; absent when they are the same. */
  template?: string;
  agent: string;
  status: TaskStatus;
  maxAttempts: number;
  /** While its backoff waits out a subscription usage limit: the reset its next attempt waits for. */
  waitingUntil?: number;
  attempts: AttemptView[];
  error: ErrorEnvelope | null;
  output: string | null;
}

export interface StepView {
  step: number;
  status: 'running' | 'finished' | 'aborted' | 'cancelled';
  startedAt: number;
  endedAt: number | null;
  taskIds: string[];
}

/** A run named from another one's lineage: enough for a link and its status. */
export interface RelatedRun {
  id: string;
  status: RunStatus;
  startedWall: number;
}

/** The other direction of `retryOf` / `resumedFrom`, and the flow's run just before this one (to compare with). */
interface RunLineage {
  /** Runs started as retries of this one, oldest first (at most 50, the newest). */
  retries: RelatedRun[];
  /** Runs resumed from this one, oldest first (at most 50, the newest). */
  resumes: RelatedRun[];
  previous: RelatedRun | null;
}

/**
 * A journal event as `getEvents` answers it: with `wall`, the wall-clock time it was journaled at.
 * On a real clock that is its `ts`; a virtual-clock run's `ts` is its own clock, which runs ahead
 * of the wall (it jumps over every backoff), so "when" is `wall`.
 */
export type JournaledEvent = HivewatchEvent & { wall: number };

export interface RunDetail {
  run: RunSummary;
  steps: StepView[];
  tasks: TaskView[];
  lastSeq: number;
  lineage: RunLineage;
  /** The agent tree the run belongs to, when it has subagents or is one (null: a run alone). */
  agentTree?: AgentTreeView | null;
}
