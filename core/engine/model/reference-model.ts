import type { FlowPlan } from '../../flow/plan/plan.js';
import type { ScriptedOutcome } from './racing-runtime.js';
import { Cancel, causedByPending, escapesParallel, Failure, inDead, reach, runTask, unwindsFinally, view, withCleanups } from './model-failures.js';
import type { ModelLink, Occ, Par } from './model-failures.js';
import { ModelChannels } from './model-channels.js';
import { declaredKeys, keyOf } from './model-names.js';
import { ModelProgram } from './model-program.js';
import type { Ctx, End, Fork, Gen, Input, Parked, Thread, Yielded } from './model-threads.js';

/**
 * A reference model of the flow language over scripted session outcomes: small, sequential and
 * written from docs/rules.md §3–4 and docs/semantics.md, not from the engine. Threads are generators
 * run one at a time from a queue; a step resolves every parked session at once, in ordinal
 * order. There is no time, no concurrency and no cancellation by the operator here: what it
 * predicts must hold whatever order the engine's attempts happen to finish in.
 *
 * Given a flow and each attempt's outcome it says: how the run ends, with which error (code and
 * where) and cause chain, the committed channel values at the end, which sessions each step
 * started, and every error occurrence that counts with its disposition (rules (docs/rules.md) 16–18).
 */

interface ModelError {
  code: string;
  /** `task <ordinal>` for a session's failure, `line:col` of a `throw`, null for a run-level failure. */
  at: string | null;
}

export interface ModelResult {
  status: 'completed' | 'failed';
  error: ModelError | null;
  /** The ending error's chain, head first (rule 16); null unless the run failed. */
  chain: ModelLink[] | null;
  /**
   * Every errorOccurred of a task that counted (not cancelled by a sibling), of a `throw` and of
   * the run itself: `<where> <code> unhandled|handled`, sorted (rule 17: unhandled iff in the chain).
   */
  occurrences: string[];
  /** Failures: 1 for a run that ended failed, 0 otherwise (a chain is one failure). */
  failures: number;
  channels: Record<string, unknown>;
  /** The ordinals of each step's sessions. */
  steps: number[][];
  /** Tasks that ran to an outcome the step counted (not cancelled): `<step>:<ordinal>` → `ok` or the failure code. */
  outcomes: Record<string, string>;
}

export interface ModelOptions {
  outcome: (ordinal: number, attempt: number, prompt: string) => ScriptedOutcome;
  maxSteps?: number;
}

export function runModel(plan: FlowPlan, options: ModelOptions): ModelResult {
  return new ModelRun(plan, options).run();
}

/** One run of the model: its threads, the writes since the last commit, what it has journaled. */
class ModelRun {
  private readonly maxSteps: number;
  private readonly channels: ModelChannels;
  private readonly program: ModelProgram;
  private readonly queue: { thread: Thread; input: Input }[] = [];
  private parked: Parked[] = [];
  private readonly root: { end: End | null } = { end: null };
  private readonly steps: number[][] = [];
  private readonly outcomes: Record<string, string> = {};
  /** Every errorOccurred that counts, in no particular order (the result sorts them). */
  private readonly occurred: Occ[] = [];

  constructor(
    private readonly plan: FlowPlan,
    private readonly options: ModelOptions,
  ) {
    this.maxSteps = options.maxSteps ?? 100;
    this.channels = new ModelChannels(declaredKeys(plan.program.body));
    this.program = new ModelProgram(this.channels, this.occurred);
  }

  run(): ModelResult {
    const main: Ctx = { path: '', frames: [], locals: new Map(), handling: null };
    this.queue.push({ thread: { gen: this.program.block(this.plan.program.body, main), fork: null, index: 0 }, input: { next: undefined } });
    this.settle();
    for (;;) {
      if (this.root.end !== null) {
        const end: End = this.root.end;
        // Writes of a program that never reached a session are committed in a step of their own.
        if (this.steps.length === 0 && this.channels.uncommitted > 0) this.steps.push([]);
        const rejected = this.commit();
        if (rejected) return this.finish(rejected);
        if (end.kind === 'cancel') throw new Error('model: the main thread was cancelled');
        return this.finish(end.kind === 'fail' ? end.failure : null);
      }
      const frontier = [...this.parked].sort((a, b) => a.ordinal - b.ordinal);
      this.parked = [];
      if (frontier.length === 0) throw new Error('model: blocked with no ready session');
      if (this.steps.length + 1 > this.maxSteps) return this.finish(this.runFailure('POLICY_MAX_STEPS_EXCEEDED', 'policy'));
      this.steps.push(frontier.map((p) => p.ordinal));
      const unhandled = this.step(this.steps.length, frontier);
      if (unhandled) return this.finish(unhandled);
      this.settle();
      const rejected = this.commit();
      if (rejected) return this.finish(rejected);
    }
  }

  /** A step: each task's own result, then who counts as cancelled, in ordinal order; the failure that aborts it, or null. */
  private step(stepNumber: number, frontier: readonly Parked[]): Failure | null {
    const killed = new Set<Par>();
    let unhandled: Failure | null = null;
    const judged = frontier.map((task) => {
      const run = runTask(this.plan, this.options.outcome, { step: stepNumber, ordinal: task.ordinal }, (t) => this.channels.render(t, task.ctx));
      const { result } = run;
      if (task.ctx.frames.some((f) => f.kind === 'par' && killed.has(f.par))) return { task, result, cancelled: true, killedBy: [] as Par[] };
      // Only a task that counts journals its errors (F6): a cancelled one is not a failure of its own.
      this.occurred.push(...run.occurrences);
      this.outcomes[`${stepNumber}:${task.ordinal}`] = 'output' in result ? 'ok' : result.failure.head.code;
      if ('output' in result) return { task, result, cancelled: false, killedBy: [] as Par[] };
      const r = reach(task.ctx.frames, result.failure.escalates);
      r.killed.forEach((p) => killed.add(p));
      // F5: a failure that reaches the top still waits for the finally blocks of the branches it cancels.
      const cleanupFirst = frontier.some((other) => other !== task && r.killed.some((par) => unwindsFinally(other.ctx.frames, par)));
      if (r.kind === 'unhandled' && unhandled === null && !cleanupFirst) unhandled = causedByPending(result.failure, task.ctx.frames);
      return { task, result, cancelled: false, killedBy: r.killed };
    });
    if (unhandled !== null) return unhandled;
    killed.forEach((p) => (p.dead = true));
    for (const { task, result, cancelled, killedBy } of judged) {
      // Parallels outside a cleanup died before it started: they do not stop the cleanup (F5).
      const cleanup = task.ctx.frames.map((f) => f.kind).lastIndexOf('cleanup');
      const deadAround = task.ctx.frames.flatMap((f, i) => (i > cleanup && f.kind === 'par' && f.par.dead ? [f.par] : []));
      const resumes = !cancelled && deadAround.every((p) => killedBy.includes(p)) && (deadAround.length === 0 || !('output' in result));
      if (!resumes) this.queue.push({ thread: task.thread, input: { cancel: new Cancel() } });
      else if ('output' in result) {
        if (task.target !== null) this.channels.stage(task.target, result.output, task.ctx);
        this.queue.push({ thread: task.thread, input: { next: result.output } });
      } else this.queue.push({ thread: task.thread, input: { fail: result.failure } });
    }
    return null;
  }

  private ended(thread: Thread, end: End): void {
    const fork = thread.fork;
    if (fork === null) {
      this.root.end = end;
      return;
    }
    fork.ends[thread.index] = end;
    if (end.kind === 'fail' && escapesParallel(fork.stmt, end.failure)) fork.par.dead = true;
    if (fork.ends.every((e) => e !== undefined)) this.join(fork);
  }

  private join(fork: Fork): void {
    const { stmt } = fork;
    const ends = fork.ends as End[];
    const names = stmt.branches.map((b, i) => b.name ?? String(i));
    const failures = ends.flatMap((e, i) => (e.kind === 'fail' ? [{ branch: names[i] as string, failure: e.failure }] : []));
    const cleanups = ends.flatMap((e) => (e.kind === 'cancel' ? e.cleanups : []));
    failures.sort((a, b) => a.failure.rank - b.failure.rank);
    const escaping = failures.find((f) => escapesParallel(stmt, f.failure));
    const resume = (input: Input): void => void this.queue.push({ thread: fork.parent, input });
    if (escaping) return resume({ fail: withCleanups(escaping.failure, cleanups) });
    const cancelled = ends.some((e) => e.kind === 'cancel');
    const successes = ends.flatMap((e, i) => (e.kind === 'value' ? [{ branch: names[i] as string, output: e.value }] : []));
    if (stmt.onFail === 'fail-fast') {
      return resume(cancelled ? { cancel: new Cancel(cleanups) } : { next: Object.fromEntries(successes.map((s) => [s.branch, s.output])) });
    }
    if (cancelled && successes.length + failures.length < ends.length) return resume({ cancel: new Cancel(cleanups) });
    const value =
      stmt.onFail === 'ignore'
        ? successes.map((s) => s.output)
        : { successes, failures: failures.map((f) => ({ branch: f.branch, error: view(f.failure.head) })) };
    resume({ next: value });
  }

  private resume(thread: Thread, input: Input): void {
    let step: IteratorResult<Yielded, unknown>;
    try {
      step = 'fail' in input ? thread.gen.throw(input.fail) : 'cancel' in input ? thread.gen.throw(input.cancel) : thread.gen.next(input.next);
    } catch (error) {
      if (error instanceof Failure) return this.ended(thread, { kind: 'fail', failure: error });
      if (error instanceof Cancel) return this.ended(thread, { kind: 'cancel', cleanups: error.cleanups });
      throw error;
    }
    if (step.done) return this.ended(thread, { kind: 'value', value: step.value });
    const y = step.value;
    if (y.kind === 'session') return void this.parked.push({ thread, ordinal: y.ordinal, target: y.target, ctx: y.ctx });
    const fork: Fork = { parent: thread, stmt: y.stmt, par: y.par, ends: y.stmt.branches.map(() => undefined) };
    y.stmt.branches.forEach((branch, index) => {
      const path = `${y.ctx.path}${y.ctx.path ? '/' : ''}p${y.stmt.pos.line}:${y.stmt.pos.column}b${index}`;
      const ctx: Ctx = { ...y.ctx, path, frames: [...y.ctx.frames, { kind: 'par', mode: y.stmt.onFail, par: y.par, branch: index }] };
      const target = branch.name === null ? null : keyOf(branch.name, y.ctx.path);
      const body = branch.body;
      const gen: Gen =
        target !== null && body.kind === 'session'
          ? (function* (): Gen {
              return yield { kind: 'session', ordinal: body.ordinal, target, ctx };
            })()
          : this.program.statement(body, ctx);
      this.queue.push({ thread: { gen, fork, index }, input: { next: undefined } });
    });
  }

  /** Runs every thread until it parks or ends; a session parked inside a dead parallel is cancelled (it unwinds, F5). */
  private settle(): void {
    for (;;) {
      while (this.queue.length > 0) {
        const next = this.queue.shift() as { thread: Thread; input: Input };
        this.resume(next.thread, next.input);
      }
      const dropped = this.parked.filter((p) => inDead(p.ctx.frames));
      if (dropped.length === 0) return;
      this.parked = this.parked.filter((p) => !dropped.includes(p));
      for (const p of dropped) this.queue.push({ thread: p.thread, input: { cancel: new Cancel() } });
    }
  }

  private commit(): Failure | null {
    return this.channels.commit() ? null : this.runFailure('POLICY_COMMIT_REJECTED', 'policy');
  }

  /** A failure the run itself raises: journaled once, a one-link chain. */
  private runFailure(code: string, category: string): Failure {
    const occ: Occ = { code, where: 'run' };
    this.occurred.push(occ);
    return Failure.root({ code, category, origin: category, recoverable: false, message: code }, occ, 0, null);
  }

  private finish(failure: Failure | null): ModelResult {
    const unhandled = new Set(failure?.occurrences() ?? []);
    return {
      status: failure === null ? 'completed' : 'failed',
      error: failure === null ? null : { code: failure.head.code, at: failure.at },
      chain: failure === null ? null : failure.chain(),
      occurrences: this.occurred.map((o) => `${o.where} ${o.code} ${unhandled.has(o) ? 'unhandled' : 'handled'}`).sort(),
      failures: failure === null ? 0 : 1,
      channels: this.channels.snapshot(),
      steps: this.steps,
      outcomes: this.outcomes,
    };
  }
}
