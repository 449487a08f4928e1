import type { ErrorEnvelope } from '../../core/base/errors/envelope.js';
import type { HivewatchEvent } from '../../core/base/events.js';
import { openSqliteStore } from '../../core/store/index.js';
import { seededRandom } from '../../core/testing/seeded-random.js';

/**
 * A database with `count` finished runs of the examples, spread over the last week: what an
 * operator's history looks like after a while (mostly completed, some failed, cancelled,
 * interrupted; a failed attempt and its retry in a fifth of them).
 */

const FLOWS = [
  'examples/01-happy-path.prose',
  'examples/02-rate-limited-api.prose',
  'examples/03-flaky-tests.prose',
  'examples/04-parallel-fan-out.prose',
  'examples/05-try-catch-finally.prose',
];

function envelope(
  code: 'RUNTIME_RATE_LIMIT' | 'RUNTIME_TIMEOUT' | 'RUNTIME_CRASHED',
  runId: string,
  flow: string,
  step: number,
  attempt: number,
  ts: number,
): ErrorEnvelope {
  return {
    category: 'runtime',
    code,
    message: `runtime fake ${code === 'RUNTIME_RATE_LIMIT' ? 'was rate limited: 429' : code === 'RUNTIME_TIMEOUT' ? 'reported a timeout (exit 124)' : 'exited with code 2'}`,
    origin: 'runtime:fake',
    recoverable: true,
    recovery_hint: null,
    context: {},
    timestamp: ts,
    correlation: { project: null, flow, run: runId, step, task: `${step}:0`, attempt },
  };
}

function journalOf(runId: string, flow: string, start: number, random: () => number): HivewatchEvent[] {
  const events: HivewatchEvent[] = [];
  let ts = start;
  const add = (body: Record<string, unknown>): void => {
    events.push({ ...body, runId, seq: events.length + 1, ts } as HivewatchEvent);
  };
  add({
    type: 'runStarted',
    flow,
    flowName: flow.replace(/^.*\//, '').replace(/\.prose$/, ''),
    options: { maxSteps: 100, concurrency: 4, clock: 'real', defaultAgent: null },
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
  });
  const steps = 1 + Math.floor(random() * 3);
  const fate = random();
  for (let step = 1; step <= steps; step++) {
    const taskId = `${step}:0`;
    const ref = { step, ordinal: 0, taskId };
    add({ type: 'stepStarted', step, frontier: [{ ordinal: 0, taskId, name: `task ${step}` }] });
    add({ type: 'taskStarted', ...ref, name: `task ${step}`, agent: 'assistant', maxAttempts: 3 });
    add({ type: 'attemptStarted', ...ref, attempt: 1 });
    let attempt = 1;
    if (random() < 0.2) {
      ts += 50 + Math.floor(random() * 500);
      const error = envelope(random() < 0.5 ? 'RUNTIME_RATE_LIMIT' : 'RUNTIME_TIMEOUT', runId, flow, step, 1, ts);
      add({ type: 'attemptFailed', ...ref, attempt: 1, durationMs: 100, error });
      add({ type: 'errorOccurred', error, caught: false, retrying: true, ...ref });
      add({ type: 'retryScheduled', ...ref, attempt: 1, delayMs: 5_000, strategy: 'linear', nextAttemptAt: ts + 5_000 });
      ts += 5_000;
      attempt = 2;
      add({ type: 'attemptStarted', ...ref, attempt: 2 });
    }
    ts += 100 + Math.floor(random() * 2_000);
    if (step === steps && fate < 0.12) {
      const error = envelope('RUNTIME_CRASHED', runId, flow, step, attempt, ts);
      add({ type: 'attemptFailed', ...ref, attempt, durationMs: 100, error });
      add({ type: 'errorOccurred', error, caught: false, retrying: false, ...ref });
      add({ type: 'taskFailed', ...ref, attempts: attempt, error, cancelled: false });
      add({ type: 'runFailed', error });
      return events;
    }
    add({ type: 'attemptSucceeded', ...ref, attempt, durationMs: 100 });
    add({ type: 'taskSucceeded', ...ref, attempts: attempt, output: 'ok' });
    add({ type: 'checkpointSaved', step, channels: {} });
    add({ type: 'stepFinished', step });
  }
  if (fate > 0.95) {
    add({ type: 'cancelRequested', commandId: `c_${runId}`, reason: 'cancelled by the operator', alreadyCancelling: false });
    add({ type: 'runCancelling', epoch: 1, commandId: `c_${runId}` });
    add({ type: 'runCancelled', cause: { commandId: `c_${runId}`, reason: 'cancelled by the operator' }, correlation: { run: runId, step: null, epoch: 1 } });
  } else {
    add({ type: 'runCompleted', steps });
  }
  return events;
}

/** Writes `count` runs into the database at `path` (created). Returns how many events. */
export function seedRuns(path: string, count: number, now = Date.now()): number {
  const store = openSqliteStore({ path });
  const random = seededRandom(42);
  let total = 0;
  try {
    let batch: HivewatchEvent[] = [];
    for (let i = 0; i < count; i++) {
      const start = now - 7 * 86_400_000 + Math.floor((i / count) * 7 * 86_400_000);
      const runId = `run_seed${String(i).padStart(6, '0')}`;
      batch.push(...journalOf(runId, FLOWS[i % FLOWS.length] as string, start, random));
      if (batch.length > 5_000) {
        store.appendEvents(batch);
        total += batch.length;
        batch = [];
      }
    }
    store.appendEvents(batch);
    total += batch.length;
  } finally {
    store.close();
  }
  return total;
}
