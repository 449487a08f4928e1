import { CancelledError, HivewatchError } from '../../base/errors/hivewatch-error.js';
import { programOrder, type BindStmt, type ParallelStmt, type Position, type Statement, type Template, type TryStmt } from '../../flow/syntax/ast.js';
import type { SessionSpec } from '../../flow/plan/plan.js';
import { renderTemplate } from '../../flow/syntax/template.js';
import type { UpdatePolicy } from './channels.js';
import { declarationsIn } from './declarations.js';
import type { FailureChain } from './failure-chain.js';
import { analyzeFailure, type Frame, type ParallelState } from './frames.js';
import { failsParallel, joinParallel } from './parallel-join.js';
import { BranchCancelled, errorView, FlowFailure } from './thread-failures.js';
import type { LoggedWrite } from './write-log.js';

/**
 * Walks the program. Each parallel branch is its own async thread; a thread that reaches a
 * session hands it to the host and waits for the step that runs it. Between steps nothing here
 * awaits anything but the host, so once the host has answered a step and let one macrotask
 * pass, every thread is parked on its next session or finished: that is the next frontier.
 *
 * A thread is named by its branch path ('' for the main program); its writes and reads follow
 * its program order (see write-log.ts).
 */

export interface SessionCall {
  spec: SessionSpec;
  frames: readonly Frame[];
  /** The thread that runs the session. */
  thread: string;
  /** Renders the prompt at execution time, in the thread's program order. */
  lookup: (path: readonly string[]) => unknown;
  /** Where the output goes, or null. */
  targetKey: string | null;
}

export interface InterpreterHost {
  /** Resolves with the session's output once its step settled; rejects with FlowFailure, BranchCancelled or CancelledError. */
  submit(call: SessionCall): Promise<string>;
  declareChannel(key: string, name: string, scope: 'global' | 'branch', policy: UpdatePolicy): void;
  stageWrite(write: LoggedWrite): void;
  /** The value a thread with these frames reads (write-log.ts). */
  readChannel(key: string, reader: readonly Frame[]): unknown;
  /**
   * A `throw "message"` raised a new error, caused by the failure being handled (or null):
   * journal it (with whether the flow catches it) and return its chain.
   */
  raised(error: HivewatchError, cause: FailureChain | null, caught: boolean): FailureChain;
  sessionAt(ordinal: number): SessionSpec;
}

type Binding = { kind: 'channel'; key: string } | { kind: 'local'; value: unknown };

class Scope {
  private readonly vars = new Map<string, Binding>();
  constructor(
    readonly parent: Scope | null,
    readonly branchPath: string,
  ) {}

  child(branchPath = this.branchPath): Scope {
    return new Scope(this, branchPath);
  }

  set(name: string, binding: Binding): void {
    this.vars.set(name, binding);
  }

  resolve(name: string): Binding | undefined {
    return this.vars.get(name) ?? this.parent?.resolve(name);
  }
}

interface Ctx {
  scope: Scope;
  frames: readonly Frame[];
  /** The failure a `catch` is handling, for a bare `throw`. */
  handling: FlowFailure | null;
}

export class Interpreter {
  constructor(private readonly host: InterpreterHost) {}

  /** Runs the program on the main thread; its channels are declared up front (see declarations.ts). */
  run(body: readonly Statement[]): Promise<unknown> {
    const scope = new Scope(null, '');
    this.declareAll(body, scope);
    return this.block(body, { scope, frames: [], handling: null });
  }

  private declareAll(body: readonly Statement[] | Statement, scope: Scope): void {
    for (const { name, constant } of declarationsIn(body)) this.declare(name, constant, scope);
  }

  private lookupIn(scope: Scope, frames: readonly Frame[]): (path: readonly string[]) => unknown {
    return (path) => {
      const [head, ...rest] = path;
      if (head === undefined) return undefined;
      const binding = scope.resolve(head);
      let value: unknown =
        binding === undefined ? this.host.readChannel(head, frames) : binding.kind === 'local' ? binding.value : this.host.readChannel(binding.key, frames);
      for (const field of rest) {
        value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
      }
      return value;
    };
  }

  private render(template: Template, ctx: Ctx): string {
    return renderTemplate(template, this.lookupIn(ctx.scope, ctx.frames));
  }

  private async block(body: readonly Statement[], ctx: Ctx): Promise<unknown> {
    let last: unknown;
    for (const statement of body) last = await this.statement(statement, ctx);
    return last;
  }

  private async statement(statement: Statement, ctx: Ctx): Promise<unknown> {
    switch (statement.kind) {
      case 'session':
        return this.host.submit(this.call(statement.ordinal, ctx, null));
      case 'bind':
        return this.bind(statement, ctx);
      case 'try':
        return this.tryStatement(statement, ctx);
      case 'throw':
        return this.throwStatement(statement.message, ctx, statement.pos);
      case 'parallel':
        return this.parallel(statement, ctx);
      case 'repeat': {
        let last: unknown;
        for (let i = 1; i <= statement.count; i++) {
          const scope = ctx.scope.child();
          if (statement.indexName !== null) scope.set(statement.indexName, { kind: 'local', value: i });
          last = await this.block(statement.body, { ...ctx, scope });
        }
        return last;
      }
      case 'do':
        return this.block(statement.body, { ...ctx, scope: ctx.scope.child() });
    }
  }

  private call(ordinal: number, ctx: Ctx, targetKey: string | null): SessionCall {
    return {
      spec: this.host.sessionAt(ordinal),
      frames: ctx.frames,
      thread: ctx.scope.branchPath,
      lookup: this.lookupIn(ctx.scope, ctx.frames),
      targetKey,
    };
  }

  /** `let`/`const` declare in the current scope: inside a parallel branch that makes a branch-local channel. */
  private declare(name: string, constant: boolean, scope: Scope): string {
    const key = scope.branchPath === '' ? name : `${name}@${scope.branchPath}`;
    this.host.declareChannel(key, name, scope.branchPath === '' ? 'global' : 'branch', constant ? 'const' : 'single');
    scope.set(name, { kind: 'channel', key });
    return key;
  }

  private targetOf(statement: BindStmt, scope: Scope): string {
    if (statement.binding !== 'assign') return this.declare(statement.name, statement.binding === 'const', scope);
    const binding = scope.resolve(statement.name);
    // `check` rejects an assignment to an undeclared name; the commit would report it as an unknown channel.
    return binding?.kind === 'channel' ? binding.key : statement.name;
  }

  private async bind(statement: BindStmt, ctx: Ctx): Promise<unknown> {
    const value = statement.value;
    if (value.kind === 'session') {
      const key = this.targetOf(statement, ctx.scope);
      return this.host.submit(this.call(value.ordinal, ctx, key));
    }
    const result = value.kind === 'string' ? this.render(value.value, ctx) : await this.parallel(value, ctx);
    const key = this.targetOf(statement, ctx.scope);
    this.host.stageWrite({ key, value: result, ordinal: null, thread: ctx.scope.branchPath, pos: statement.pos, frames: ctx.frames });
    return result;
  }

  private async tryStatement(statement: TryStmt, ctx: Ctx): Promise<unknown> {
    const hasFinally = statement.finallyBody !== null;
    const bodyFrames: Frame[] = [...ctx.frames, { kind: 'try', hasCatch: statement.catchClause !== null, hasFinally }];
    let pending: FlowFailure | null = null;
    let result: unknown;
    try {
      result = await this.block(statement.body, { ...ctx, frames: bodyFrames, scope: ctx.scope.child() });
    } catch (error) {
      // A branch cancelled by its dying parallel runs this finally, never the catch (F5).
      if (error instanceof BranchCancelled) throw await this.unwind(statement, ctx, error);
      // An operator's cancel is not a failure: no catch and no finally; the thread just stops.
      if (!(error instanceof FlowFailure)) throw error;
      // A system error escalates past every catch (hivemind-error-model.md §9); finally still runs.
      if (statement.catchClause === null || error.error.escalates) {
        pending = error;
      } else {
        const scope = ctx.scope.child();
        if (statement.catchClause.errorName !== null) {
          scope.set(statement.catchClause.errorName, { kind: 'local', value: errorView(error.error) });
        }
        // A failure inside the catch still runs the finally before it goes on.
        const frames: readonly Frame[] = hasFinally ? [...ctx.frames, { kind: 'try', hasCatch: false, hasFinally: true }] : ctx.frames;
        try {
          result = await this.block(statement.catchClause.body, { scope, frames, handling: error });
        } catch (fromCatch) {
          if (fromCatch instanceof BranchCancelled) throw await this.unwind(statement, ctx, fromCatch);
          if (!(fromCatch instanceof FlowFailure)) throw fromCatch;
          pending = fromCatch;
        }
      }
    }
    if (statement.finallyBody !== null) {
      const frames: readonly Frame[] = pending === null ? ctx.frames : [...ctx.frames, { kind: 'finally', pending: pending.chain }];
      try {
        await this.block(statement.finallyBody, { ...ctx, frames, scope: ctx.scope.child() });
      } catch (fromFinally) {
        // A failing finally replaces the pending failure and keeps it as its cause (rule 16).
        if (fromFinally instanceof FlowFailure && pending !== null) {
          throw new FlowFailure(fromFinally.chain.causedBy('finally-failed', pending.chain), fromFinally.rank);
        }
        throw fromFinally;
      }
    }
    if (pending !== null) throw pending;
    return result;
  }

  /**
   * F5: a cancelled branch runs this try's `finally` inside a cleanup frame (its sessions run in
   * later steps like any other) and goes on being cancelled. A failure of the finally does not
   * stop the unwinding: it travels with the cancellation, to join the killing failure's chain.
   */
  private async unwind(statement: TryStmt, ctx: Ctx, cancelled: BranchCancelled): Promise<CancelledError> {
    if (statement.finallyBody === null) return cancelled;
    try {
      await this.block(statement.finallyBody, { ...ctx, frames: [...ctx.frames, { kind: 'cleanup' }], scope: ctx.scope.child() });
      return cancelled;
    } catch (error) {
      if (error instanceof FlowFailure) return cancelled.with([error]);
      if (error instanceof BranchCancelled) return cancelled.with(error.cleanups);
      // An operator's cancel ends the cleanup too (rule 9: no task starts after it).
      if (error instanceof CancelledError) return error;
      throw error;
    }
  }

  private throwStatement(message: Template | null, ctx: Ctx, pos: Position): never {
    if (message === null) {
      if (ctx.handling === null) {
        const error = new HivewatchError('USER_INVALID_FLOW', { message: `throw without a message outside a catch (line ${pos.line})`, origin: 'user' });
        throw new FlowFailure(this.host.raised(error, null, false), programOrder(pos));
      }
      // A rethrow is the same failure going on: nothing new is journaled, the chain says so.
      throw new FlowFailure(ctx.handling.chain.rethrown(), ctx.handling.rank);
    }
    const error = new HivewatchError('USER_THROWN', {
      message: this.render(message, ctx),
      origin: 'user',
      context: { line: pos.line, column: pos.column },
    });
    // The error being handled becomes the new one's cause, so an operator can follow it back.
    const chain = this.host.raised(error, ctx.handling?.chain ?? null, analyzeFailure(ctx.frames, false).kind === 'caught');
    throw new FlowFailure(chain, programOrder(pos));
  }

  private async parallel(statement: ParallelStmt, ctx: Ctx): Promise<unknown> {
    const state: ParallelState = { id: `${statement.pos.line}:${statement.pos.column}`, dead: false };
    const branchPrefix = `${ctx.scope.branchPath}${ctx.scope.branchPath ? '/' : ''}p${state.id}`;
    const branches = statement.branches.map((branch, index) => {
      // Named results are visible after the parallel, so they live in the enclosing scope.
      const key = branch.name === null ? null : this.declare(branch.name, false, ctx.scope);
      const scope = ctx.scope.child(`${branchPrefix}b${index}`);
      this.declareAll(branch.body, scope);
      const frames: Frame[] = [...ctx.frames, { kind: 'parallel', onFail: statement.onFail, branch: index, state }];
      const branchCtx: Ctx = { scope, frames, handling: ctx.handling };
      const body = branch.body;
      const run = key !== null && body.kind === 'session' ? this.host.submit(this.call(body.ordinal, branchCtx, key)) : this.statement(body, branchCtx);
      // A failure leaving a branch kills the parallel at once: no later step starts one of its sessions.
      void run.catch((reason: unknown) => {
        if (reason instanceof FlowFailure && failsParallel(statement, reason)) state.dead = true;
      });
      return { name: branch.name ?? String(index), run };
    });
    const settled = await Promise.allSettled(branches.map((b) => b.run));
    return joinParallel(
      statement,
      branches.map((b) => b.name),
      settled,
    );
  }
}
