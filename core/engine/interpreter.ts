import { CancelledError, HivewatchError } from '../errors/hivewatch-error.js';
import type {
  BindStmt,
  ParallelStmt,
  Statement,
  Template,
  TryStmt,
} from '../flow/ast.js';
import type { SessionSpec } from '../flow/plan.js';
import { renderTemplate } from '../flow/template.js';
import type { Frame, ParallelState } from './frames.js';
import type { UpdatePolicy } from './channels.js';

/**
 * Walks the program. Each parallel branch is its own async thread; a thread that reaches a
 * session hands it to the host and waits for the step that runs it. Between steps nothing here
 * awaits anything but the host, so once the host has answered a step and let one macrotask
 * pass, every thread is parked on its next session or finished: that is the next frontier.
 */

/** A failure travelling up the threads, with the ordinal that decides ties (rule 6). */
export class FlowFailure extends Error {
  constructor(
    readonly error: HivewatchError,
    readonly ordinal: number,
  ) {
    super(error.message);
    this.name = 'FlowFailure';
  }
}

export interface SessionCall {
  spec: SessionSpec;
  frames: readonly Frame[];
  /** Renders the prompt at execution time, against the channels committed by then. */
  lookup: (path: readonly string[]) => unknown;
  /** Where the output goes, or null. */
  targetKey: string | null;
}

export interface InterpreterHost {
  /** Resolves with the session's output after its step committed; rejects with FlowFailure or CancelledError. */
  submit(call: SessionCall): Promise<string>;
  declareChannel(key: string, name: string, scope: 'global' | 'branch', policy: UpdatePolicy): void;
  stageWrite(key: string, value: unknown): void;
  readChannel(key: string): unknown;
  /** A `throw "message"` raised a new error: journal it. */
  raised(error: HivewatchError): void;
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

const USER_THROW_ORDINAL = Number.MAX_SAFE_INTEGER;

export function errorView(error: HivewatchError): Record<string, unknown> {
  return {
    message: error.message,
    code: error.code,
    category: error.category,
    origin: error.origin,
    recoverable: error.recoverable,
  };
}

export class Interpreter {
  constructor(private readonly host: InterpreterHost) {}

  run(body: readonly Statement[]): Promise<unknown> {
    return this.block(body, { scope: new Scope(null, ''), frames: [], handling: null });
  }

  private lookupIn(scope: Scope): (path: readonly string[]) => unknown {
    return (path) => {
      const [head, ...rest] = path;
      if (head === undefined) return undefined;
      const binding = scope.resolve(head);
      let value: unknown =
        binding === undefined ? this.host.readChannel(head) : binding.kind === 'local' ? binding.value : this.host.readChannel(binding.key);
      for (const field of rest) {
        value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined;
      }
      return value;
    };
  }

  private render(template: Template, scope: Scope): string {
    return renderTemplate(template, this.lookupIn(scope));
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
    return { spec: this.host.sessionAt(ordinal), frames: ctx.frames, lookup: this.lookupIn(ctx.scope), targetKey };
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
    // An undeclared target stays as written; the commit rejects it as an unknown channel (rule 7).
    return binding?.kind === 'channel' ? binding.key : statement.name;
  }

  private async bind(statement: BindStmt, ctx: Ctx): Promise<unknown> {
    const value = statement.value;
    if (value.kind === 'session') {
      const key = this.targetOf(statement, ctx.scope);
      return this.host.submit(this.call(value.ordinal, ctx, key));
    }
    const result = value.kind === 'string' ? this.render(value.value, ctx.scope) : await this.parallel(value, ctx);
    const key = this.targetOf(statement, ctx.scope);
    this.host.stageWrite(key, result);
    return result;
  }

  private async tryStatement(statement: TryStmt, ctx: Ctx): Promise<unknown> {
    const frames: Frame[] = [...ctx.frames, { kind: 'try', hasCatch: statement.catchClause !== null }];
    let pending: unknown = null;
    let result: unknown;
    try {
      result = await this.block(statement.body, { ...ctx, frames, scope: ctx.scope.child() });
    } catch (error) {
      // Cancellation is not a failure: no catch and no finally; the thread just stops.
      if (error instanceof CancelledError || !(error instanceof FlowFailure)) throw error;
      if (statement.catchClause === null) {
        pending = error;
      } else {
        const scope = ctx.scope.child();
        if (statement.catchClause.errorName !== null) {
          scope.set(statement.catchClause.errorName, { kind: 'local', value: errorView(error.error) });
        }
        try {
          result = await this.block(statement.catchClause.body, { ...ctx, scope, handling: error });
        } catch (fromCatch) {
          if (fromCatch instanceof CancelledError || !(fromCatch instanceof FlowFailure)) throw fromCatch;
          pending = fromCatch;
        }
      }
    }
    if (statement.finallyBody !== null) {
      await this.block(statement.finallyBody, { ...ctx, scope: ctx.scope.child() });
    }
    if (pending !== null) throw pending;
    return result;
  }

  private throwStatement(message: Template | null, ctx: Ctx, pos: { line: number; column: number }): never {
    if (message === null) {
      if (ctx.handling === null) {
        throw new FlowFailure(
          new HivewatchError('USER_INVALID_FLOW', { message: `throw without a message outside a catch (line ${pos.line})`, origin: 'user' }),
          USER_THROW_ORDINAL,
        );
      }
      throw ctx.handling;
    }
    const error = new HivewatchError('USER_THROWN', {
      message: this.render(message, ctx.scope),
      origin: 'user',
      context: { line: pos.line, column: pos.column },
    });
    this.host.raised(error);
    throw new FlowFailure(error, USER_THROW_ORDINAL);
  }

  private async parallel(statement: ParallelStmt, ctx: Ctx): Promise<unknown> {
    const state: ParallelState = { id: `${statement.pos.line}:${statement.pos.column}`, dead: false };
    const branchPrefix = `${ctx.scope.branchPath}${ctx.scope.branchPath ? '/' : ''}p${state.id}`;
    const branches = statement.branches.map((branch, index) => {
      // Named results are visible after the parallel, so they live in the enclosing scope.
      const key = branch.name === null ? null : this.declare(branch.name, false, ctx.scope);
      const scope = ctx.scope.child(`${branchPrefix}b${index}`);
      const frames: Frame[] = [...ctx.frames, { kind: 'parallel', onFail: statement.onFail, branch: index, state }];
      const branchCtx: Ctx = { scope, frames, handling: ctx.handling };
      const body = branch.body;
      const run =
        key !== null && body.kind === 'session'
          ? this.host.submit(this.call(body.ordinal, branchCtx, key))
          : this.statement(body, branchCtx);
      return { name: branch.name ?? String(index), run };
    });
    const settled = await Promise.allSettled(branches.map((b) => b.run));
    const failures: { name: string; failure: FlowFailure }[] = [];
    let cancelled: CancelledError | null = null;
    settled.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') return;
      const name = (branches[index] as { name: string }).name;
      if (outcome.reason instanceof FlowFailure) failures.push({ name, failure: outcome.reason });
      else if (outcome.reason instanceof CancelledError) cancelled = outcome.reason;
      else throw outcome.reason;
    });
    failures.sort((a, b) => a.failure.ordinal - b.failure.ordinal);
    const successes = settled.flatMap((outcome, index) =>
      outcome.status === 'fulfilled' ? [{ branch: (branches[index] as { name: string }).name, output: outcome.value }] : [],
    );
    if (statement.onFail === 'fail-fast') {
      const first = failures[0];
      if (first) throw first.failure;
      if (cancelled) throw cancelled;
      return Object.fromEntries(successes.map((s) => [s.branch, s.output]));
    }
    // A run cancellation stops continue/ignore parallels too; branch failures do not.
    if (cancelled && successes.length + failures.length < branches.length) throw cancelled;
    if (statement.onFail === 'ignore') return successes.map((s) => s.output);
    return {
      successes,
      failures: failures.map((f) => ({ branch: f.name, error: errorView(f.failure.error) })),
    };
  }
}
