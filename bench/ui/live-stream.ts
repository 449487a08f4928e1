import type { ErrorEnvelope } from '../../core/base/errors/envelope.js';
import type { HivewatchEvent } from '../../core/base/events.js';
import { openSqliteStore, type SqliteStore } from '../../core/store/index.js';

/**
 * The live stream of the UI bench, written where a real run writes it: another host (this bench
 * process, with its own store connection, as `hivewatch run` is) appends journal events to the
 * SQLite file a real `serve` has open; serve's journal tail picks them up and sends them to the
 * window over SSE. Nothing in the page is replaced: what the window shows went through the store,
 * serve and SSE.
 *
 * Each stream run does steps of one task whose first attempt fails (rate limited), is retried
 * and succeeds (11 events a step); when the stream ends each run finishes its step and completes.
 */

const FLOW = 'examples/02-rate-limited-api.prose';
const STEP_EVENTS = 11;

interface StreamRun {
  id: string;
  seq: number;
  /** Events of the current step already written (0 … STEP_EVENTS). */
  inStep: number;
  step: number;
}

function rateLimited(run: StreamRun, ts: number): ErrorEnvelope {
  return {
    category: 'runtime',
    code: 'RUNTIME_RATE_LIMIT',
    message: 'runtime fake was rate limited: 429',
    origin: 'runtime:fake',
    recoverable: true,
    recovery_hint: null,
    context: {},
    timestamp: ts,
    correlation: { project: null, flow: FLOW, run: run.id, step: run.step, task: `${run.step}:0`, attempt: 1 },
  };
}

/** The next event of the run's current step (starting the next step after its stepFinished). */
function nextEvent(run: StreamRun, ts: number): HivewatchEvent {
  if (run.inStep === STEP_EVENTS) {
    run.inStep = 0;
    run.step += 1;
  }
  const k = run.inStep++;
  const taskId = `${run.step}:0`;
  const ref = { step: run.step, ordinal: 0, taskId };
  const bodies: Record<string, unknown>[] = [
    { type: 'stepStarted', step: run.step, frontier: [{ ordinal: 0, taskId, name: `task ${run.step}` }] },
    { type: 'taskStarted', ...ref, name: `task ${run.step}`, agent: 'assistant', maxAttempts: 3 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    { type: 'attemptFailed', ...ref, attempt: 1, durationMs: 5, error: rateLimited(run, ts) },
    { type: 'errorOccurred', error: rateLimited(run, ts), caught: false, retrying: true, ...ref },
    { type: 'retryScheduled', ...ref, attempt: 1, delayMs: 50, strategy: 'linear', nextAttemptAt: ts + 50 },
    { type: 'attemptStarted', ...ref, attempt: 2 },
    { type: 'attemptSucceeded', ...ref, attempt: 2, durationMs: 5 },
    { type: 'taskSucceeded', ...ref, attempts: 2, output: 'ok' },
    { type: 'checkpointSaved', step: run.step, channels: {} },
    { type: 'stepFinished', step: run.step },
  ];
  return { ...bodies[k], runId: run.id, seq: ++run.seq, ts } as HivewatchEvent;
}

export interface LiveWriter {
  ids: readonly string[];
  /** `rate` events a second for `seconds`, one transaction about every 50 ms; then every run completes. Resolves to the events written. */
  stream(rate: number, seconds: number): Promise<number>;
  close(): void;
}

/** Opens the database as a second host and starts `count` running runs (their runStarted journaled). */
export function openLiveWriter(path: string, count: number): LiveWriter {
  const store: SqliteStore = openSqliteStore({ path });
  const runs: StreamRun[] = Array.from({ length: count }, (_, i) => ({ id: `run_stream${String(i).padStart(4, '0')}`, seq: 0, inStep: STEP_EVENTS, step: 0 }));
  const now = Date.now();
  store.appendEvents(
    runs.map(
      (run) =>
        ({
          type: 'runStarted',
          runId: run.id,
          seq: ++run.seq,
          ts: now,
          flow: FLOW,
          flowName: '02-rate-limited-api',
          options: { maxSteps: 1_000, concurrency: 4, clock: 'real', defaultAgent: null },
          resumedFrom: null,
          retryOf: null,
          resumeStep: 0,
        }) as HivewatchEvent,
    ),
  );
  const stream = (rate: number, seconds: number): Promise<number> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const total = Math.round(rate * seconds);
      let cursor = 0;
      let written = 0;
      // Every 50 ms, what the rate owes since the start: a late tick (a slow write, a busy event
      // loop) writes more, so the stream keeps its rate and length when the writer keeps up.
      const timer = setInterval(() => {
        try {
          const ts = Date.now();
          const elapsed = performance.now() - started;
          const due = elapsed >= seconds * 1000 ? total : Math.min(total, Math.round((rate * elapsed) / 1000));
          const batch: HivewatchEvent[] = [];
          while (cursor < due) batch.push(nextEvent(runs[cursor++ % runs.length] as StreamRun, ts));
          const last = cursor >= total;
          if (last) {
            clearInterval(timer);
            // Each run finishes the step it is in, then completes.
            for (const run of runs) {
              while (run.inStep > 0 && run.inStep < STEP_EVENTS) batch.push(nextEvent(run, ts));
              batch.push({ type: 'runCompleted', runId: run.id, seq: ++run.seq, ts, steps: run.step } as HivewatchEvent);
            }
          }
          if (batch.length > 0) store.appendEvents(batch);
          written += batch.length;
          if (last) resolve(written);
        } catch (error) {
          clearInterval(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }, 50);
    });
  return { ids: runs.map((r) => r.id), stream, close: () => store.close() };
}
