import type { Clock } from '../base/clock.js';
import type { EventSink } from '../base/events.js';
import type { ResumePoint } from '../base/resume-point.js';
import type { RunResult } from '../engine/run/run.js';
import type { WorkspaceMode } from '../flow/plan/agent-work.js';
import type { Diagnostic } from '../flow/syntax/ast.js';
import type { TelemetryTarget } from '../runtimes/presets/telemetry-env.js';
import type { HivewatchStore } from '../store/index.js';
import type { AlertDeliveryChange, HivewatchApi } from './api.js';
import type { AlertsHostOptions } from './alerts/alerts-host.js';
import type { HostWatchPass } from './runs/host-watch.js';
import type { IssueTransitions } from '../store/issues/issue-transitions.js';
import type { IssueWatchScheduler } from './issues/watch.js';
import type { TailScheduler } from './live/journal-tail.js';
import type { LiveSubscribeOptions, LiveSubscription } from './live/hub.js';

/** What `createHivewatchService` takes and gives (service.ts): its options, the CLI's run of a file, the service. */

export interface HivewatchServiceOptions {
  store: HivewatchStore;
  /** The bundled examples (flow ids `examples/<file>`). */
  examplesDir: string;
  /** The operator's own flows (flow ids `user/<file>`); none when absent. */
  userFlowsDir?: string | null;
  /** Attempts running at once across all runs of the process (default 8). */
  globalConcurrency?: number;
  /** The default clock of new runs (default real); `startRun({virtualClock})` overrides it. */
  clock?: 'real' | 'virtual';
  /** Agent for sessions that name none (a flow agent or a built-in preset), unless `startRun({agent})`. */
  defaultAgent?: string | null;
  /** Live events kept for resuming subscribers (default 50,000). */
  liveCapacity?: number;
  /** The shortest time between two live delivery rounds (default DEFAULT_LIVE_FRAME_MS; 0: every turn of the event loop). */
  liveFrameMs?: number;
  /**
   * How often the journal is probed for other processes' commits and commands (default 50 ms),
   * and the timer that does it (tests inject one and call `probeJournal()`).
   */
  tailIntervalMs?: number;
  tailScheduler?: TailScheduler;
  /** Waits before each retry of a failed journal write (default: 2 minutes of them, runs/journal-env.ts; tests pass []). */
  journalRetryDelaysMs?: readonly number[];
  /**
   * Once a journal flush gave up (the database away), how often the journal tries again by itself,
   * so a run's last events land as soon as the database is back (default 1 s: the sink's).
   */
  journalBackgroundRetryMs?: number;
  /** How long a command for a run another process hosts waits for that host's answer (default 2 s). */
  commandAckTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace for subprocess runtimes (default 2000 ms). */
  killGraceMs?: number;
  project?: string | null;
  /** Agent work: where task worktrees go, and git's environment (tests isolate it). */
  worktreeRoot?: string;
  gitEnv?: Record<string, string>;
  /** The OTLP receiver the presets' CLIs report to: asked at each attempt, null for none. */
  telemetry?: () => TelemetryTarget | null;
  /**
   * Watch the database's other hosts (runs/host-watch.ts): a dead host's runs become interrupted
   * without a restart, and a run of this host another host interrupted is stopped. The shells
   * (serve, the app, `hivewatch run`) turn it on; tests inject the timer and call `checkHosts()`.
   */
  watchHosts?: boolean | { intervalMs?: number; scheduler?: TailScheduler };
  /**
   * Alert rules and webhook deliveries (alerts/alerts-host.ts); `false`: this process posts nothing
   * and evaluates no journal (`hivewatch run`, bulk), but still queues the alerts of the issue
   * transitions it journals, for a serving host to post.
   */
  alerts?: AlertsHostOptions | false;
  /** How often issues' time-bound transitions are checked (issues/watch.ts, default 60 s), and its timer. */
  issueWatch?: { intervalMs?: number; scheduler?: IssueWatchScheduler };
}

/** A flow file run from the command line (`hivewatch run` / `resume` / `retry`). */
export interface RunFileInput {
  file: string;
  /** --repo: the repository of agent work (else the flow's `repo:`, else the one around `cwd`). */
  repo?: string | null;
  /** --workspace: where sessions work unless they say. */
  workspace?: WorkspaceMode | null;
  agent?: string | null;
  virtualClock?: boolean;
  maxSteps?: number;
  concurrency?: number;
  resume?: ResumePoint | null;
  retryOf?: string | null;
  /** Where the repository is looked for when neither --repo nor the flow names one (default process.cwd()). */
  cwd?: string;
  /** Sees every event as it happens (before commit), given the run's clock: the CLI's progress. */
  observe?: (clock: Clock) => EventSink;
}

/**
 * A run's end as its host saw it. `takenOver`: another host interrupted the run while this one
 * was not heard from (runs/host-watch.ts); this host stopped it and journaled nothing more of it.
 */
export type HostedRunResult = RunResult & { takenOver?: string };

export type RunFileResult =
  /** The flow does not check: the attempt is recorded as failed run `runId` (USER_INVALID_FLOW). */
  | { kind: 'invalid'; diagnostics: Diagnostic[]; runId: string }
  | { kind: 'refused'; message: string }
  | { kind: 'started'; runId: string; done: Promise<HostedRunResult> };

export interface CloseOptions {
  /** How long to wait for cancelled runs to end before closing anyway (default 10 s). */
  timeoutMs?: number;
}

export interface HivewatchService extends HivewatchApi {
  readonly store: HivewatchStore;
  /** This service instance's id: live ids of another instance mean nothing here. */
  readonly instance: string;
  /** The live subscription with what the shells need: where it starts and whether it reset. */
  subscribeLive(options: LiveSubscribeOptions): LiveSubscription;
  /**
   * Probes the journal now: publishes other processes' new commits and applies the run commands
   * addressed to this process. Resolves once those commands are acknowledged.
   */
  probeJournal(): Promise<void>;
  /** Checks a flow file under its key (flows/keys.ts) and, when it checks, executes it here. */
  runFile(input: RunFileInput): Promise<RunFileResult>;
  /** Writes what the journal still holds in memory; throws when it cannot (a full disk). */
  flushJournal(): Promise<void>;
  /** Ids of the runs this process is executing. */
  activeRunIds(): string[];
  /** The result of a run this process executes (null when it is not one of them). */
  whenFinished(runId: string): Promise<HostedRunResult> | null;
  /** One pass of the host watch now (runs/host-watch.ts); nothing when `watchHosts` is off. */
  checkHosts(): Promise<HostWatchPass>;
  /** Error issues' hook (core/store/issues/issue-transitions.ts): the changes this process journals. */
  readonly issueTransitions: IssueTransitions;
  /** Journals the issue transitions due now (issues/watch.ts); resolves when done. */
  checkIssues(): Promise<void>;
  /**
   * `listener` whenever this host's alert engine stored deliveries (once a pass) or recorded a
   * POST: the shells read the delivery log, and the desktop feed when `change.desktop`, then
   * instead of waiting for their beat. Another host's deliveries are not told here; the shells'
   * beat finds them. Returns the unsubscribe.
   */
  onAlertDeliveries(listener: (change: AlertDeliveryChange) => void): () => void;
  /** Cancels the runs still executing, waits for them (bounded), flushes the journal. The store stays open. */
  close(options?: CloseOptions): Promise<void>;
}
