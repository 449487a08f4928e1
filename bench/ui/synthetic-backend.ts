/// <reference lib="dom" />
/**
 * A synthetic `window.hivewatch` bridge for the UI performance run, installed with Playwright's
 * addInitScript before the app loads (so the renderer's IPC client talks to it). It holds
 * `runs` finished runs plus `active` running ones, and on `window.__perf.stream(rate, seconds)`
 * feeds those active runs a steady stream of journal events (a retried attempt per step), then
 * ends each of them. It keeps its own truth (status, step, attempts, errors per run), computed
 * apart from the renderer's reducers, for the consistency check.
 *
 * Self-contained: Playwright serializes this function into the page.
 */

export interface SyntheticConfig {
  runs: number;
  active: number;
  now: number;
}

export interface Truth {
  status: string;
  step: number;
  attempts: number;
  errorCount: number;
}

export function installSyntheticBackend(config: SyntheticConfig): void {
  type Json = Record<string, unknown>;
  interface Run {
    summary: Json & { id: string; status: string; step: number; attempts: number; errorCount: number; startedAt: number };
    events: Json[];
  }
  const runs: Run[] = [];
  const byId = new Map<string, Run>();
  const flows = ['01-happy-path', '02-rate-limited-api', '03-flaky-tests', '04-parallel-fan-out', '05-try-catch-finally'];
  const summary = (id: string, i: number, startedAt: number, status: string): Run['summary'] => ({
    id,
    flow: `examples/${flows[i % 5]}.prose`,
    flowName: flows[i % 5] as string,
    status,
    startedAt,
    endedAt: status === 'running' ? null : startedAt + 1_000 + (i % 50) * 100,
    durationMs: status === 'running' ? null : 1_000 + (i % 50) * 100,
    step: status === 'running' ? 0 : 1 + (i % 3),
    maxSteps: 1_000,
    attempts: status === 'running' ? 0 : 1 + (i % 3),
    errorCount: status === 'failed' ? 1 + (i % 2) : 0,
    retrying: null,
    resumedFrom: null,
    retryOf: null,
    lastError: status === 'failed' ? { code: 'RUNTIME_CRASHED', message: 'runtime fake exited with code 2' } : null,
  });
  for (let i = 0; i < config.runs; i++) {
    const id = `run_hist${String(i).padStart(6, '0')}`;
    const status = i % 9 === 0 ? 'failed' : i % 31 === 0 ? 'cancelled' : 'completed';
    const run: Run = { summary: summary(id, i, config.now - 7 * 86_400_000 + i * 60_000, status), events: [] };
    runs.push(run);
    byId.set(id, run);
  }
  for (let i = 0; i < config.active; i++) {
    const id = `run_stream${String(i).padStart(4, '0')}`;
    const run: Run = { summary: summary(id, i, config.now - 1_000 + i, 'running'), events: [] };
    const started = { type: 'runStarted', runId: id, seq: 1, ts: run.summary.startedAt, flow: run.summary.flow, flowName: run.summary.flowName, options: { maxSteps: 1_000, concurrency: 4, clock: 'virtual', defaultAgent: null }, resumedFrom: null, retryOf: null, resumeStep: 0 };
    run.events.push(started);
    runs.push(run);
    byId.set(id, run);
  }
  const sorted = [...runs].sort((a, b) => b.summary.startedAt - a.summary.startedAt);
  const active = runs.filter((r) => r.summary.status === 'running');

  let liveId = 0;
  const listeners = new Set<(message: Json) => void>();
  const deliver = (events: Json[]): void => {
    const batch = events.map((event) => ({ id: ++liveId, event }));
    for (const l of listeners) l({ kind: 'batch', events: batch });
  };

  // The per-run cycle: one step = 10 events, attempt 1 fails (rate limit), attempt 2 succeeds.
  const cycle = ['stepStarted', 'taskStarted', 'attemptStarted', 'attemptFailed', 'errorOccurred', 'retryScheduled', 'attemptStarted', 'attemptSucceeded', 'taskSucceeded', 'stepFinished'];
  const nextEvent = (run: Run, ts: number): Json => {
    const seq = run.events.length + 1;
    const k = (seq - 2) % cycle.length;
    const step = Math.floor((seq - 2) / cycle.length) + 1;
    const type = cycle[k] as string;
    const taskId = `${step}:0`;
    const ref = { step, ordinal: 0, taskId };
    const error = { category: 'runtime', code: 'RUNTIME_RATE_LIMIT', message: 'runtime fake was rate limited: 429', origin: 'runtime:fake', recoverable: true, recovery_hint: null, context: {}, timestamp: ts, correlation: { project: null, flow: run.summary.flow, run: run.summary.id, step, task: taskId, attempt: 1 } };
    const base = { runId: run.summary.id, seq, ts };
    const s = run.summary;
    switch (type) {
      case 'stepStarted':
        s.step = step;
        return { ...base, type, step, frontier: [{ ordinal: 0, taskId, name: `task ${step}` }] };
      case 'taskStarted':
        return { ...base, type, ...ref, name: `task ${step}`, agent: 'assistant', maxAttempts: 2 };
      case 'attemptStarted':
        s.attempts++;
        return { ...base, type, ...ref, attempt: k === 2 ? 1 : 2 };
      case 'attemptFailed':
        return { ...base, type, ...ref, attempt: 1, durationMs: 5, error };
      case 'errorOccurred':
        s.errorCount++;
        s.lastError = { code: error.code, message: error.message };
        return { ...base, type, error, caught: false, retrying: true, ...ref };
      case 'retryScheduled':
        return { ...base, type, ...ref, attempt: 1, delayMs: 30_000, strategy: 'rate_limit_exponential', nextAttemptAt: ts + 30_000 };
      case 'attemptSucceeded':
        return { ...base, type, ...ref, attempt: 2, durationMs: 5 };
      case 'taskSucceeded':
        return { ...base, type, ...ref, attempts: 2, output: 'ok' };
      default:
        return { ...base, type: 'stepFinished', step };
    }
  };

  const perf = {
    delivered: 0,
    done: false,
    truth(): Record<string, { status: string; step: number; attempts: number; errorCount: number }> {
      const out: Record<string, { status: string; step: number; attempts: number; errorCount: number }> = {};
      for (const r of active) out[r.summary.id] = { status: r.summary.status, step: r.summary.step, attempts: r.summary.attempts, errorCount: r.summary.errorCount };
      return out;
    },
    /** `rate` events a second for `seconds`, in batches every 50 ms; then every active run completes. */
    stream(rate: number, seconds: number): Promise<number> {
      return new Promise((resolve) => {
        const perTick = Math.round(rate / 20);
        const ticks = seconds * 20;
        let tick = 0;
        let cursor = 0;
        const timer = setInterval(() => {
          const ts = config.now + tick * 50;
          const batch: Json[] = [];
          for (let i = 0; i < perTick; i++) {
            const run = active[cursor++ % active.length] as Run;
            const event = nextEvent(run, ts);
            run.events.push(event);
            batch.push(event);
          }
          deliver(batch);
          perf.delivered += batch.length;
          if (++tick >= ticks) {
            clearInterval(timer);
            const end: Json[] = [];
            for (const run of active) {
              const event = { runId: run.summary.id, seq: run.events.length + 1, ts: ts + 50, type: 'runCompleted', steps: run.summary.step };
              run.events.push(event);
              run.summary.status = 'completed';
              run.summary.endedAt = ts + 50;
              run.summary.durationMs = ts + 50 - run.summary.startedAt;
              end.push(event);
            }
            deliver(end);
            perf.delivered += end.length;
            perf.done = true;
            resolve(perf.delivered);
          }
        }, 50);
      });
    },
  };
  (window as unknown as { __perf: typeof perf }).__perf = perf;

  const reply = (value: unknown): Promise<{ ok: true; value: unknown }> => Promise.resolve({ ok: true, value });
  const bridge = {
    invoke(method: string, input: Json = {}): Promise<unknown> {
      switch (method) {
        case 'listRuns': {
          // Newest first with the status and text filters (what the perf script uses); offset cursors.
          const statuses = Array.isArray(input.status) ? (input.status as string[]) : null;
          const text = typeof input.text === 'string' ? input.text.toLowerCase() : '';
          const matching = sorted.filter((r) => (!statuses || statuses.includes(r.summary.status)) && (!text || r.summary.id.toLowerCase().includes(text)));
          const start = Number(input.cursor ?? 0);
          const limit = Number(input.limit ?? 50);
          const items = matching.slice(start, start + limit).map((r) => ({ ...r.summary }));
          return reply({ items, nextCursor: start + limit < matching.length ? String(start + limit) : null });
        }
        case 'countRuns': {
          const text = typeof input.text === 'string' ? input.text.toLowerCase() : '';
          const byStatus: Record<string, number> = {};
          let total = 0;
          for (const r of sorted) {
            if (text && !r.summary.id.toLowerCase().includes(text)) continue;
            byStatus[r.summary.status] = (byStatus[r.summary.status] ?? 0) + 1;
            total++;
          }
          return reply({ total, byStatus, byFlow: [] });
        }
        case 'getRun': {
          const run = byId.get(String(input.runId));
          return reply(run ? { run: { ...run.summary }, steps: [], tasks: [], lastSeq: run.events.length, lineage: { retries: [], resumes: [], previous: null } } : null);
        }
        case 'getEvents': {
          const run = byId.get(String(input.runId));
          const after = Number(input.afterSeq ?? 0);
          return reply(run ? run.events.filter((e) => (e.seq as number) > after).slice(0, Number(input.limit ?? 1_000)).map((e) => ({ ...e, wall: e.ts })) : []);
        }
        case 'listFlows':
          return reply([]);
        case 'errorCounts':
        case 'errorGroups':
          return reply([]);
        case 'errorSeries':
          return reply({ bucket: 'hour', stackBy: 'category', keys: [], points: [] });
        case 'listErrors':
          return reply({ items: [], nextCursor: null });
        default:
          return Promise.resolve({ ok: false, error: { status: 400, code: 'unsupported', message: `${method} is not part of the perf backend` } });
      }
    },
    subscribe(_afterId: number, onMessage: (message: Json) => void): () => void {
      listeners.add(onMessage);
      setTimeout(() => onMessage({ kind: 'ready', startId: liveId }), 0);
      return () => listeners.delete(onMessage);
    },
  };
  (window as unknown as { hivewatch: typeof bridge }).hivewatch = bridge;
}
