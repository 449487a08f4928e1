import { fileURLToPath } from 'node:url';
import type { HivewatchApi, HivewatchEvent, LiveEvent, RunDetail } from './api.js';

/**
 * The one API conformance suite. It is run against the service in-process, through the HTTP
 * client over a real server, and over IPC, each time with a fresh database, the bundled examples
 * and a folder of test flows. Runs use the real fake runtime (subprocesses); timing-sensitive
 * parts use the virtual clock, or a delay long enough (an hour, a minute) that the state under
 * test surely holds; nothing sleeps and nothing asserts a duration.
 */

export interface HarnessOptions {
  dbPath: string;
  examplesDir: string;
  userFlowsDir: string;
}

export interface ApiHarness {
  api: HivewatchApi;
  close(): Promise<void>;
}

export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples', import.meta.url));

/** Test flows written into the operator's folder (`user/<file>`). */
export const TEST_FLOWS: Record<string, string> = {
  // Two tasks in flight for a minute: cancel lands during the step (rules 9–11).
  'slow.prose': `agent worker:
  runtime: "fake"

let results = parallel (on-fail: "continue"):
  a = session: worker
    prompt: "Slow A"
    simulate: "slow:60s"
  b = session: worker
    prompt: "Slow B"
    simulate: "slow:60s"
session: worker
  prompt: "Never reached"
`,
  // The first attempt crashes and the retry waits an hour (real clock): surely waiting in backoff.
  'backoff.prose': `agent worker:
  runtime: "fake"

session: worker
  prompt: "Call the slow API"
  retry: 1
  backoff: "fixed"
  delay: "1h"
  max-delay: "2h"
  simulate: "crash, ok"
`,
  'bad.prose': `session
  bogus: 1
`,
};

/** Collects a live subscription; `waitFor` resolves on the first matching event (seen or future). */
export class Collector {
  readonly events: LiveEvent[] = [];
  resets = 0;
  readonly ready: Promise<number>;
  readonly unsubscribe: () => void;
  private waiters: { match: (e: LiveEvent) => boolean; resolve: (e: LiveEvent) => void }[] = [];
  private resetWaiters: (() => void)[] = [];

  constructor(api: HivewatchApi, afterId?: number) {
    let markReady: (id: number) => void = () => undefined;
    this.ready = new Promise((resolve) => (markReady = resolve));
    this.unsubscribe = api.subscribe(
      (batch) => {
        this.events.push(...batch);
        for (const event of batch) {
          this.waiters = this.waiters.filter((w) => {
            if (!w.match(event)) return true;
            w.resolve(event);
            return false;
          });
        }
      },
      {
        ...(afterId !== undefined ? { afterId } : {}),
        onReset: () => {
          this.resets++;
          for (const resolve of this.resetWaiters.splice(0)) resolve();
        },
        onReady: (id) => markReady(id),
      },
    );
  }

  waitFor(match: (e: HivewatchEvent) => boolean): Promise<LiveEvent> {
    const seen = this.events.find((e) => match(e.event));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match: (e) => match(e.event), resolve }));
  }

  waitForReset(): Promise<void> {
    if (this.resets > 0) return Promise.resolve();
    return new Promise((resolve) => this.resetWaiters.push(resolve));
  }

  ofRun(runId: string): HivewatchEvent[] {
    return this.events.filter((e) => e.event.runId === runId).map((e) => e.event);
  }
}

export const TERMINAL = new Set(['runCompleted', 'runFailed', 'runCancelled', 'runInterrupted']);
export const COMMIT_SCOPED = new Set(['writeApplied', 'checkpointSaved', 'stepFinished']);

/** What the suite's cases share, set up by the suite's beforeAll (read it inside a test or hook). */
export interface ConformanceContext {
  readonly api: HivewatchApi;
  /** The suite's live subscription, open since before the first case. */
  readonly live: Collector;
  /** The suite's folder: the database and the operator's flows (`flows/`). */
  readonly dir: string;
  /** The run's terminal event, once the live subscription saw it. */
  finished(runId: string): Promise<HivewatchEvent>;
  start(flow: string, extra?: { virtualClock?: boolean }): Promise<string>;
  detail(runId: string): Promise<RunDetail>;
}
