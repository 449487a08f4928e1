import { fullGc } from '../../core/testing/full-gc.js';
import type { HivewatchEvent } from '../../core/base/events.js';
import { DAY } from '../../core/store/rollups/rollups.js';
import { JournalBuilder, pick, prng, type AttemptScript, type ErrorSpec, type TaskScript } from '../../core/store/testing/journal-builder.js';

/** The benchmark data: realistic journals over 30 days, and how they are batched. */

export const START = Date.UTC(2026, 0, 1);
export const SPAN = 30 * DAY;

/** A full GC between timed sections (untimed), so one section does not pay for another's garbage. */
export const gc = fullGc;

/**
 * Before each timed section: a full GC, then a pause for the collector's background threads
 * (sweeping) to finish, so no section pays for another's garbage or for the forced GC itself.
 */
export async function quiesce(): Promise<void> {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 25));
}

export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// ---- the workload --------------------------------------------------------------------------

const FLOWS: readonly (readonly [string, string])[] = [
  ['flows/triage.prose', 'triage'],
  ['flows/fix-bug.prose', 'fix-bug'],
  ['flows/review.prose', 'review'],
  ['flows/release.prose', 'release'],
  ['flows/docs.prose', 'docs'],
  ['flows/migrate-db.prose', 'migrate-db'],
];

const FILES = ['src/app.ts', 'src/db/pool.ts', 'lib/parser.py', 'cmd/server/main.go', 'tests/test_api.py', 'README.md'];
const hex = (random: () => number, n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join('');
const int = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** Errors of every category, weighted like a busy installation (runtime and verification first). */
const ERROR_MAKERS: readonly [number, (random: () => number) => ErrorSpec][] = [
  [
    14,
    (r) => ({
      code: 'RUNTIME_RATE_LIMIT',
      origin: 'runtime:claude-code',
      message: `runtime claude-code was rate limited: 429 Too Many Requests, retry after ${int(r, 1, 90)}s`,
    }),
  ],
  [
    8,
    (r) => ({
      code: 'RUNTIME_TIMEOUT',
      origin: pick(r, ['runtime:codex', 'runtime:claude-code']),
      message: `runtime exceeded its timeout of ${pick(r, [30_000, 60_000, 120_000])}ms`,
    }),
  ],
  [
    5,
    (r) => ({
      code: 'RUNTIME_CRASHED',
      origin: 'runtime:command',
      message: `runtime command exited with code ${pick(r, [1, 137, 139])}: /tmp/hivewatch/run-${hex(r, 8)}/stderr.log`,
    }),
  ],
  [3, (r) => ({ code: 'RUNTIME_OUTPUT_MALFORMED', origin: 'runtime:codex', message: `unexpected token at position ${int(r, 1, 4000)} in runtime output` })],
  [2, () => ({ code: 'RUNTIME_CONNECTION_FAILED', origin: 'runtime:command', message: 'spawn pytest ENOENT' })],
  [6, () => ({ code: 'AGENT_NO_CHANGES', origin: 'agent:coder', message: 'agent coder produced no changes' })],
  [
    4,
    (r) => ({
      code: 'AGENT_INVALID_OUTPUT',
      origin: 'agent:planner',
      message: `agent planner returned invalid JSON: expected "steps" at line ${int(r, 1, 200)}`,
    }),
  ],
  [
    10,
    (r) => ({ code: 'VERIFICATION_CHECK_FAILED', origin: 'check:pytest', message: `check pytest failed: ${int(r, 1, 9)} of ${int(r, 100, 400)} tests failed` }),
  ],
  [5, (r) => ({ code: 'VERIFICATION_CHECK_FAILED', origin: 'check:eslint', message: `check eslint failed: ${int(r, 1, 40)} problems in ${pick(r, FILES)}` })],
  [3, (r) => ({ code: 'VERIFICATION_AGENT_REJECTED', origin: 'verifier', message: `verifier rejected the change: missing tests for handler_${hex(r, 6)}` })],
  [3, (r) => ({ code: 'GIT_MERGE_CONFLICT', origin: 'git', message: `merge conflict in ${pick(r, FILES)}` })],
  [2, (r) => ({ code: 'GIT_COMMIT_FAILED', origin: 'git', message: `git commit failed: pre-commit hook exited with code ${int(r, 1, 2)}` })],
  [
    2,
    (r) => ({
      code: 'SCOPE_VIOLATION_WRITE',
      origin: 'scope_enforcer',
      message: `wrote ${pick(r, ['/etc/hosts', '~/.ssh/config', '../outside/notes.txt'])} outside the scope`,
    }),
  ],
  [3, (r) => ({ code: 'USER_THROWN', origin: 'user', message: `thrown by the flow: ticket ${int(r, 1000, 99999)} is not ready` })],
  [1, (r) => ({ code: 'POLICY_RESOURCE_EXHAUSTED', origin: 'policy', message: `token budget exhausted after ${int(r, 100_000, 2_000_000)} tokens` })],
];
const ERROR_WEIGHT = ERROR_MAKERS.reduce((sum, [w]) => sum + w, 0);

function randomError(random: () => number): ErrorSpec {
  let x = random() * ERROR_WEIGHT;
  for (const [weight, make] of ERROR_MAKERS) {
    x -= weight;
    if (x < 0) return make(random);
  }
  return (ERROR_MAKERS[0] as (typeof ERROR_MAKERS)[number])[1](random);
}

type Shape = 'mixed' | 'errorHeavy';

/** One run's journal. `errorHeavy`: retry storms (most attempts fail), for filling the error history. */
function makeRun(random: () => number, runId: string, start: number, shape: Shape): HivewatchEvent[] {
  const [flow, flowName] = pick(random, FLOWS);
  const b = new JournalBuilder(runId, { flow, flowName, start, tick: int(random, 20, 3_000), project: 'bench' }).start();
  const steps = int(random, 1, shape === 'mixed' ? 5 : 3);
  let failed = false;
  for (let s = 0; s < steps && !failed; s += 1) {
    const width = random() < 0.05 ? int(random, 8, 31) : int(random, 1, 3);
    const tasks: TaskScript[] = Array.from({ length: width }, (_, ordinal) => {
      const attempts: AttemptScript[] = [];
      if (shape === 'errorHeavy') {
        const n = int(random, 3, 8);
        for (let i = 0; i < n - 1; i += 1) attempts.push(randomError(random));
        attempts.push(random() < 0.6 ? 'ok' : randomError(random));
      } else if (random() < 0.3) {
        const n = int(random, 1, 3);
        for (let i = 0; i < n; i += 1) attempts.push(randomError(random));
        attempts.push(random() < 0.85 ? 'ok' : randomError(random));
      } else {
        attempts.push('ok');
      }
      return {
        name: `task ${ordinal}`,
        agent: pick(random, ['coder', 'planner', 'reviewer']),
        attempts,
        caught: random() < (shape === 'errorHeavy' ? 0.7 : 0.3),
        delayMs: int(random, 500, 60_000),
      };
    });
    b.runStep(tasks);
    failed = b.failure !== null;
  }
  const ending = random();
  if (failed) b.fail();
  else if (ending < 0.06) b.cancelDuringStep([{ attempts: [randomError(random), 'ok'] }, { attempts: ['ok'] }]);
  else if (ending < 0.08) b.cancelBetweenSteps();
  else if (ending < 0.085) b.dieDuringStep([{ attempts: ['ok'] }]);
  else b.complete();
  return b.events;
}

export type Batching = 'live' | 'storm';

const STEP_ENDS = new Set(['stepFinished', 'runCompleted', 'runFailed', 'runCancelled', 'runInterrupted']);

/**
 * Runs starting at a steady rate over [start, start + span), their events merged in timestamp
 * order and cut into batches as the durable sink cuts them: `live`, at every step end (what the
 * engine awaits between steps) and at 1,000 events; `storm`, only at 1,000. (Cut here, not by the
 * sink itself: its writes settle asynchronously, so a synchronous loop would see none.)
 */
/** Exported for profiling scripts (`node --cpu-prof`), like SameRows and rawDatabase. */
export class Workload {
  private readonly random: () => number;
  private readonly heap: { events: HivewatchEvent[]; i: number }[] = [];
  private readonly batches: HivewatchEvent[][] = [];
  private pending: HivewatchEvent[] = [];
  private nextRun = 0;
  private created = 0;
  private createdErrors = 0;
  emitted = 0;

  constructor(
    seed: number,
    private readonly shape: Shape,
    private readonly batching: Batching,
    /** Stop starting runs once this many events (or errors, for `errorHeavy`) are created. */
    private readonly target: number,
    private readonly interval: number,
    private readonly prefix: string,
  ) {
    this.random = prng(seed);
  }

  private cut(): void {
    if (this.pending.length === 0) return;
    this.batches.push(this.pending);
    this.pending = [];
  }

  private reached(): boolean {
    return this.shape === 'errorHeavy' ? this.createdErrors >= this.target : this.created >= this.target;
  }

  private startRun(): void {
    const start = START + Math.floor(this.nextRun * this.interval + this.random() * this.interval);
    const events = makeRun(this.random, `${this.prefix}-${this.nextRun.toString(36)}`, start, this.shape);
    this.nextRun += 1;
    this.created += events.length;
    for (const e of events) if (e.type === 'errorOccurred') this.createdErrors += 1;
    this.push({ events, i: 0 });
  }

  private tsOf(c: { events: HivewatchEvent[]; i: number }): number {
    return (c.events[c.i] as HivewatchEvent).ts;
  }

  private push(c: { events: HivewatchEvent[]; i: number }): void {
    const h = this.heap;
    h.push(c);
    let k = h.length - 1;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (this.tsOf(h[p]!) <= this.tsOf(h[k]!)) break;
      [h[p], h[k]] = [h[k]!, h[p]!];
      k = p;
    }
  }

  private pop(): { events: HivewatchEvent[]; i: number } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let k = 0;
      for (;;) {
        const l = 2 * k + 1;
        const r = l + 1;
        let m = k;
        if (l < h.length && this.tsOf(h[l]!) < this.tsOf(h[m]!)) m = l;
        if (r < h.length && this.tsOf(h[r]!) < this.tsOf(h[m]!)) m = r;
        if (m === k) break;
        [h[m], h[k]] = [h[k]!, h[m]!];
        k = m;
      }
    }
    return top;
  }

  /** The next batches, at least `minEvents` events unless the workload ends; [] when done. */
  take(minEvents: number): HivewatchEvent[][] {
    let n = 0;
    const out: HivewatchEvent[][] = [];
    const drain = (): void => {
      for (const b of this.batches.splice(0)) {
        out.push(b);
        n += b.length;
      }
    };
    while (n < minEvents) {
      const nextStart = START + this.nextRun * this.interval;
      if (!this.reached() && (this.heap.length === 0 || nextStart <= this.tsOf(this.heap[0]!))) {
        this.startRun();
        continue;
      }
      const cursor = this.pop();
      if (!cursor) break;
      const event = cursor.events[cursor.i] as HivewatchEvent;
      cursor.i += 1;
      if (cursor.i < cursor.events.length) this.push(cursor);
      this.pending.push(event);
      if (this.pending.length >= 1_000) this.cut();
      this.emitted += 1;
      if (this.batching === 'live' && STEP_ENDS.has(event.type)) this.cut();
      drain();
    }
    if (this.heap.length === 0 && this.reached()) this.cut();
    drain();
    return out;
  }
}

// ---- the same rows, written raw ------------------------------------------------------------
