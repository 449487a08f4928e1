import type { ParallelStmt, Position, Statement, Template } from '../../flow/ast.js';
import type { FlowPlan } from '../../flow/plan.js';
import { scriptedResult, type ScriptedOutcome } from '../racing-runtime.js';

/**
 * A reference model of the flow language over scripted session outcomes: small, sequential and
 * written from DESIGN §3–4 and docs/semantics.md, not from the engine. Threads are generators
 * run one at a time from a queue; a step resolves every parked session at once, in ordinal
 * order. There is no time, no concurrency and no cancellation by the operator here: what it
 * predicts must hold whatever order the engine's attempts happen to finish in.
 *
 * Given a flow and each attempt's outcome it says: how the run ends, with which error (code and
 * where), the committed channel values at the end, and which sessions each step started.
 */

export interface ModelError {
  code: string;
  /** `task <ordinal>` for a session's failure, `line:col` of a `throw`, null for a run-level failure. */
  at: string | null;
}

export interface ModelResult {
  status: 'completed' | 'failed';
  error: ModelError | null;
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

interface FailureInfo {
  code: string;
  category: string;
  origin: string;
  recoverable: boolean;
  message: string;
  /** Program order of where it was raised: decides which of several failures wins. */
  rank: number;
  at: string | null;
}

class Failure {
  constructor(readonly info: FailureInfo) {}
  get escalates(): boolean {
    return this.info.category === 'system';
  }
}

interface Par {
  dead: boolean;
}
type Frame = { kind: 'try'; hasCatch: boolean; hasFinally: boolean } | { kind: 'par'; mode: string; par: Par; branch: number };

interface Ctx {
  path: string;
  frames: readonly Frame[];
  locals: ReadonlyMap<string, unknown>;
  handling: Failure | null;
}

type Yielded = { kind: 'session'; ordinal: number; target: string | null; ctx: Ctx } | { kind: 'fork'; stmt: ParallelStmt; par: Par; ctx: Ctx };
type Gen = Generator<Yielded, unknown, unknown>;

interface Fork {
  parent: Thread;
  stmt: ParallelStmt;
  par: Par;
  ends: (End | undefined)[];
}
type End = { kind: 'value'; value: unknown } | { kind: 'fail'; failure: Failure } | { kind: 'cancel' };

interface Thread {
  gen: Gen;
  fork: Fork | null;
  index: number;
}

interface Parked {
  thread: Thread;
  ordinal: number;
  target: string | null;
  ctx: Ctx;
}

interface Write {
  key: string;
  value: unknown;
  frames: readonly Frame[];
}

const rankOf = (pos: Position): number => pos.line * 1_000_000 + pos.column;
/** Concurrent: different branches of one execution of a parallel. Anything else ran in sequence. */
function concurrent(a: readonly Frame[], b: readonly Frame[]): boolean {
  const pa = a.filter((f) => f.kind === 'par');
  const pb = b.filter((f) => f.kind === 'par');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]] as [Extract<Frame, { kind: 'par' }>, Extract<Frame, { kind: 'par' }>];
    if (x.par !== y.par) return false;
    if (x.branch !== y.branch) return true;
  }
  return false;
}
const keyOf = (name: string, path: string): string => (path === '' ? name : `${name}@${path}`);
const parentPath = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
const inDead = (frames: readonly Frame[]): boolean => frames.some((f) => f.kind === 'par' && f.par.dead);

function format(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

const view = (f: FailureInfo): Record<string, unknown> => ({ message: f.message, code: f.code, category: f.category, origin: f.origin, recoverable: f.recoverable });

/** Who stops a failure on its way up: the walk of DESIGN rules 13–14 and 14b. */
function reach(frames: readonly Frame[], escalates: boolean): { kind: 'caught' | 'deferred' | 'unhandled'; killed: Par[] } {
  const killed: Par[] = [];
  for (const frame of [...frames].reverse()) {
    if (frame.kind === 'try') {
      if (frame.hasCatch && !escalates) return { kind: 'caught', killed };
      if (frame.hasFinally) return { kind: 'deferred', killed };
    } else if (frame.mode !== 'fail-fast' && !escalates) {
      return { kind: 'caught', killed };
    } else {
      killed.push(frame.par);
    }
  }
  return { kind: 'unhandled', killed };
}

export function runModel(plan: FlowPlan, options: ModelOptions): ModelResult {
  const maxSteps = options.maxSteps ?? 100;
  const declared = declaredKeys(plan.program.body);
  const committed = new Map<string, unknown>();
  let log: Write[] = [];
  const queue: { thread: Thread; input: { next: unknown } | { fail: Failure } }[] = [];
  let parked: Parked[] = [];
  const root: { end: End | null } = { end: null };
  const steps: number[][] = [];
  const outcomes: Record<string, string> = {};

  const resolveKey = (name: string, path: string): string => {
    for (let p = path; ; p = parentPath(p)) {
      if (declared.has(keyOf(name, p)) || p === '') return keyOf(name, p);
    }
  };
  const read = (key: string, frames: readonly Frame[]): unknown => {
    let value = committed.get(key);
    for (const w of log) if (w.key === key && !concurrent(w.frames, frames) && !inDead(w.frames)) value = w.value;
    return value;
  };
  const render = (template: Template, ctx: Ctx): string =>
    template.parts
      .map((part) => {
        if (part.kind === 'text') return part.text;
        const [head = '', ...fields] = part.path;
        let value = ctx.locals.has(head) ? ctx.locals.get(head) : read(resolveKey(head, ctx.path), ctx.frames);
        for (const field of fields) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
        return format(value);
      })
      .join('');
  const stage = (key: string, value: unknown, ctx: Ctx): void => {
    log.push({ key, value, frames: ctx.frames });
  };

  function* block(body: readonly Statement[], ctx: Ctx): Gen {
    let last: unknown;
    for (const s of body) last = yield* statement(s, ctx);
    return last;
  }

  function* statement(s: Statement, ctx: Ctx): Gen {
    switch (s.kind) {
      case 'session':
        return yield { kind: 'session', ordinal: s.ordinal, target: null, ctx };
      case 'bind': {
        const key = s.binding === 'assign' ? resolveKey(s.name, ctx.path) : keyOf(s.name, ctx.path);
        if (s.value.kind === 'session') return yield { kind: 'session', ordinal: s.value.ordinal, target: key, ctx };
        const value = s.value.kind === 'string' ? render(s.value.value, ctx) : yield* statement(s.value, ctx);
        stage(key, value, ctx);
        return value;
      }
      case 'try': {
        const hasFinally = s.finallyBody !== null;
        let pending: Failure | null = null;
        let result: unknown;
        try {
          result = yield* block(s.body, { ...ctx, frames: [...ctx.frames, { kind: 'try', hasCatch: s.catchClause !== null, hasFinally }] });
        } catch (error) {
          if (!(error instanceof Failure)) throw error;
          if (s.catchClause === null || error.escalates) pending = error;
          else {
            const locals = new Map(ctx.locals);
            if (s.catchClause.errorName !== null) locals.set(s.catchClause.errorName, view(error.info));
            const frames: Frame[] = hasFinally ? [...ctx.frames, { kind: 'try', hasCatch: false, hasFinally: true }] : [...ctx.frames];
            try {
              result = yield* block(s.catchClause.body, { ...ctx, frames, locals, handling: error });
            } catch (inner) {
              if (!(inner instanceof Failure)) throw inner;
              pending = inner;
            }
          }
        }
        if (s.finallyBody !== null) yield* block(s.finallyBody, ctx);
        if (pending !== null) throw pending;
        return result;
      }
      case 'throw': {
        if (s.message === null) {
          if (ctx.handling === null) throw new Error('model: throw outside a catch passed check');
          throw ctx.handling;
        }
        throw new Failure({
          code: 'USER_THROWN',
          category: 'user',
          origin: 'user',
          recoverable: false,
          message: render(s.message, ctx),
          rank: rankOf(s.pos),
          at: `${s.pos.line}:${s.pos.column}`,
        });
      }
      case 'parallel':
        return yield { kind: 'fork', stmt: s, par: { dead: false }, ctx };
      case 'repeat': {
        let last: unknown;
        for (let i = 1; i <= s.count; i++) {
          const locals = new Map(ctx.locals);
          if (s.indexName !== null) locals.set(s.indexName, i);
          last = yield* block(s.body, { ...ctx, locals });
        }
        return last;
      }
      case 'do':
        return yield* block(s.body, ctx);
    }
  }

  const escapesParallel = (stmt: ParallelStmt, failure: Failure): boolean => stmt.onFail === 'fail-fast' || failure.escalates;

  const ended = (thread: Thread, end: End): void => {
    const fork = thread.fork;
    if (fork === null) {
      root.end = end;
      return;
    }
    fork.ends[thread.index] = end;
    if (end.kind === 'fail' && escapesParallel(fork.stmt, end.failure)) fork.par.dead = true;
    if (fork.ends.every((e) => e !== undefined)) join(fork);
  };

  const join = (fork: Fork): void => {
    const { stmt } = fork;
    const ends = fork.ends as End[];
    const names = stmt.branches.map((b, i) => b.name ?? String(i));
    const failures = ends.flatMap((e, i) => (e.kind === 'fail' ? [{ branch: names[i] as string, failure: e.failure }] : []));
    failures.sort((a, b) => a.failure.info.rank - b.failure.info.rank);
    const escaping = failures.find((f) => escapesParallel(stmt, f.failure));
    if (escaping) return void queue.push({ thread: fork.parent, input: { fail: escaping.failure } });
    const cancelled = ends.some((e) => e.kind === 'cancel');
    const successes = ends.flatMap((e, i) => (e.kind === 'value' ? [{ branch: names[i] as string, output: e.value }] : []));
    if (stmt.onFail === 'fail-fast') {
      if (cancelled) return ended(fork.parent, { kind: 'cancel' });
      return void queue.push({ thread: fork.parent, input: { next: Object.fromEntries(successes.map((s) => [s.branch, s.output])) } });
    }
    if (cancelled && successes.length + failures.length < ends.length) return ended(fork.parent, { kind: 'cancel' });
    const value =
      stmt.onFail === 'ignore'
        ? successes.map((s) => s.output)
        : { successes, failures: failures.map((f) => ({ branch: f.branch, error: view(f.failure.info) })) };
    queue.push({ thread: fork.parent, input: { next: value } });
  };

  const resume = (thread: Thread, input: { next: unknown } | { fail: Failure }): void => {
    let step: IteratorResult<Yielded, unknown>;
    try {
      step = 'fail' in input ? thread.gen.throw(input.fail) : thread.gen.next(input.next);
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      return ended(thread, { kind: 'fail', failure: error });
    }
    if (step.done) return ended(thread, { kind: 'value', value: step.value });
    const y = step.value;
    if (y.kind === 'session') return void parked.push({ thread, ordinal: y.ordinal, target: y.target, ctx: y.ctx });
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
          : statement(body, ctx);
      queue.push({ thread: { gen, fork, index }, input: { next: undefined } });
    });
  };

  /** Runs every thread until it parks or ends; sessions parked inside dead parallels are dropped. */
  const settle = (): void => {
    for (;;) {
      while (queue.length > 0) {
        const next = queue.shift() as (typeof queue)[number];
        resume(next.thread, next.input);
      }
      const dropped = parked.filter((p) => inDead(p.ctx.frames));
      if (dropped.length === 0) return;
      parked = parked.filter((p) => !dropped.includes(p));
      for (const p of dropped) ended(p.thread, { kind: 'cancel' });
    }
  };

  const commit = (): ModelError | null => {
    const writes = log.filter((w) => !inDead(w.frames));
    log = [];
    for (let i = 0; i < writes.length; i++) {
      for (let j = 0; j < i; j++) {
        const [a, b] = [writes[j] as Write, writes[i] as Write];
        if (a.key === b.key && concurrent(a.frames, b.frames)) return { code: 'POLICY_COMMIT_REJECTED', at: null };
      }
    }
    for (const w of writes) committed.set(w.key, w.value);
    return null;
  };

  const finish = (status: 'completed' | 'failed', error: ModelError | null): ModelResult => ({
    status,
    error,
    channels: Object.fromEntries(committed),
    steps,
    outcomes,
  });

  queue.push({ thread: { gen: block(plan.program.body, { path: '', frames: [], locals: new Map(), handling: null }), fork: null, index: 0 }, input: { next: undefined } });
  settle();
  for (;;) {
    if (root.end !== null) {
      const end: End = root.end;
      // Writes of a program that never reached a session are committed in a step of their own.
      if (steps.length === 0 && log.length > 0) steps.push([]);
      const rejected = commit();
      if (rejected) return finish('failed', rejected);
      if (end.kind === 'fail') return finish('failed', { code: end.failure.info.code, at: end.failure.info.at });
      return finish('completed', null);
    }
    const frontier = [...parked].sort((a, b) => a.ordinal - b.ordinal);
    parked = [];
    if (frontier.length === 0) throw new Error('model: blocked with no ready session');
    if (steps.length + 1 > maxSteps) return finish('failed', { code: 'POLICY_MAX_STEPS_EXCEEDED', at: null });
    const stepNumber = steps.length + 1;
    steps.push(frontier.map((p) => p.ordinal));

    // The step: each task's own result, then who counts as cancelled, in ordinal order.
    const killed = new Set<Par>();
    let unhandled: Failure | null = null;
    const judged = frontier.map((task) => {
      const result = runTask(plan, options, task.ordinal, task.ctx, render);
      if (task.ctx.frames.some((f) => f.kind === 'par' && killed.has(f.par))) return { task, result, cancelled: true, killedBy: [] as Par[] };
      outcomes[`${stepNumber}:${task.ordinal}`] = 'output' in result ? 'ok' : result.failure.info.code;
      if ('output' in result) return { task, result, cancelled: false, killedBy: [] as Par[] };
      const r = reach(task.ctx.frames, result.failure.escalates);
      r.killed.forEach((p) => killed.add(p));
      if (r.kind === 'unhandled' && unhandled === null) unhandled = result.failure;
      return { task, result, cancelled: false, killedBy: r.killed };
    });
    if (unhandled !== null) {
      const failure: Failure = unhandled;
      return finish('failed', { code: failure.info.code, at: failure.info.at });
    }
    killed.forEach((p) => (p.dead = true));
    for (const { task, result, cancelled, killedBy } of judged) {
      const deadAround = task.ctx.frames.flatMap((f) => (f.kind === 'par' && f.par.dead ? [f.par] : []));
      const resumes = !cancelled && deadAround.every((p) => killedBy.includes(p)) && (deadAround.length === 0 || !('output' in result));
      if (!resumes) ended(task.thread, { kind: 'cancel' });
      else if ('output' in result) {
        if (task.target !== null) stage(task.target, result.output, task.ctx);
        queue.push({ thread: task.thread, input: { next: result.output } });
      } else queue.push({ thread: task.thread, input: { fail: result.failure } });
    }
    settle();
    const rejected = commit();
    if (rejected) return finish('failed', rejected);
  }
}

/** One task through its retry policy: DESIGN rule 2 with the error deciding (no timing here). */
function runTask(
  plan: FlowPlan,
  options: ModelOptions,
  ordinal: number,
  ctx: Ctx,
  render: (t: Template, ctx: Ctx) => string,
): { output: string } | { failure: Failure } {
  const spec = plan.sessions[ordinal];
  if (!spec) throw new Error(`model: no session ${ordinal}`);
  const prompt = spec.prompt === null ? '' : render(spec.prompt, ctx);
  const retries = spec.retry.retries;
  const at = `task ${ordinal}`;
  const rank = rankOf(spec.pos);
  for (let attempt = 1; ; attempt++) {
    const result = scriptedResult(options.outcome(ordinal, attempt, prompt));
    if (result.kind === 'succeeded') return { output: result.output };
    if (result.kind !== 'failed') throw new Error('model: a scripted attempt cannot be cancelled');
    const e = result.error;
    const info: FailureInfo = { code: e.code, category: e.category, origin: e.origin, recoverable: e.recoverable, message: e.message, rank, at };
    if (!e.recoverable) return { failure: new Failure(info) };
    if (attempt > retries) {
      if (retries === 0) return { failure: new Failure(info) };
      return {
        failure: new Failure({ ...info, code: 'POLICY_RETRY_LIMIT_EXCEEDED', category: 'policy', origin: 'policy', recoverable: false, message: `gave up after ${attempt} attempts: ${e.message}` }),
      };
    }
  }
}

/** Every channel key the flow declares: `let`/`const` where they stand, branch results where their parallel runs. */
function declaredKeys(body: readonly Statement[]): Set<string> {
  const keys = new Set<string>();
  const walk = (s: Statement, path: string): void => {
    switch (s.kind) {
      case 'bind':
        if (s.binding !== 'assign') keys.add(keyOf(s.name, path));
        if (s.value.kind === 'parallel') walk(s.value, path);
        return;
      case 'parallel':
        s.branches.forEach((b, i) => {
          if (b.name !== null) keys.add(keyOf(b.name, path));
          walk(b.body, `${path}${path ? '/' : ''}p${s.pos.line}:${s.pos.column}b${i}`);
        });
        return;
      case 'try':
        s.body.forEach((x) => walk(x, path));
        s.catchClause?.body.forEach((x) => walk(x, path));
        s.finallyBody?.forEach((x) => walk(x, path));
        return;
      case 'repeat':
      case 'do':
        s.body.forEach((x) => walk(x, path));
        return;
      default:
        return;
    }
  };
  body.forEach((s) => walk(s, ''));
  return keys;
}
