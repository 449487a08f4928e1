import type { Statement, TryStmt } from '../../flow/syntax/ast.js';
import { Cancel, Failure, rankOf, view, type Frame, type Head, type Occ } from './model-failures.js';
import type { ModelChannels } from './model-channels.js';
import { keyOf } from './model-names.js';
import type { Ctx, Gen, Yielded } from './model-threads.js';

/**
 * The reference model's statements as generators: a thread yields at each session it reaches
 * (parked until its step resolves it) and at each parallel (forked by the model's scheduler), and
 * throws a `Failure` or a `Cancel` out of it. try / catch / finally, `throw` and the unwinding of
 * a cancelled branch through its `finally` blocks (F5) are here, written from docs/rules.md §3 and
 * docs/semantics.md, not from the engine's interpreter.
 */
export class ModelProgram {
  constructor(
    private readonly channels: ModelChannels,
    /** Every errorOccurred that counts: a `throw` journals one here. */
    private readonly occurred: Occ[],
  ) {}

  *block(body: readonly Statement[], ctx: Ctx): Gen {
    let last: unknown;
    for (const s of body) last = yield* this.statement(s, ctx);
    return last;
  }

  *statement(s: Statement, ctx: Ctx): Gen {
    switch (s.kind) {
      case 'session':
        return yield { kind: 'session', ordinal: s.ordinal, target: null, ctx };
      case 'bind': {
        const key = s.binding === 'assign' ? this.channels.resolveKey(s.name, ctx.path) : keyOf(s.name, ctx.path);
        if (s.value.kind === 'session') return yield { kind: 'session', ordinal: s.value.ordinal, target: key, ctx };
        const value = s.value.kind === 'string' ? this.channels.render(s.value.value, ctx) : yield* this.statement(s.value, ctx);
        this.channels.stage(key, value, ctx);
        return value;
      }
      case 'try':
        return yield* this.tryStatement(s, ctx);
      case 'throw':
        throw this.thrown(s, ctx);
      case 'parallel':
        return yield { kind: 'fork', stmt: s, par: { dead: false }, ctx };
      case 'repeat': {
        let last: unknown;
        for (let i = 1; i <= s.count; i++) {
          const locals = new Map(ctx.locals);
          if (s.indexName !== null) locals.set(s.indexName, i);
          last = yield* this.block(s.body, { ...ctx, locals });
        }
        return last;
      }
      case 'do':
        return yield* this.block(s.body, ctx);
    }
  }

  /** What a `throw` raises: the failure being handled, marked (a rethrow journals nothing new); or a new, journaled one. */
  private thrown(s: Extract<Statement, { kind: 'throw' }>, ctx: Ctx): Failure {
    if (s.message === null) {
      if (ctx.handling === null) throw new Error('model: throw outside a catch passed check');
      return ctx.handling.rethrown();
    }
    const occ: Occ = { code: 'USER_THROWN', where: `throw ${s.pos.line}:${s.pos.column}` };
    this.occurred.push(occ);
    const head: Head = { code: 'USER_THROWN', category: 'user', origin: 'user', recoverable: false, message: this.channels.render(s.message, ctx) };
    const own = Failure.root(head, occ, rankOf(s.pos), `${s.pos.line}:${s.pos.column}`);
    return ctx.handling === null ? own : own.causedBy('thrown-in-catch', ctx.handling);
  }

  private *tryStatement(s: TryStmt, ctx: Ctx): Gen {
    const hasFinally = s.finallyBody !== null;
    let pending: Failure | null = null;
    let result: unknown;
    try {
      result = yield* this.block(s.body, { ...ctx, frames: [...ctx.frames, { kind: 'try', hasCatch: s.catchClause !== null, hasFinally }] });
    } catch (error) {
      // F5: a cancelled branch runs the finally, never the catch, and stays cancelled.
      if (error instanceof Cancel) throw yield* this.unwind(s, ctx, error);
      if (!(error instanceof Failure)) throw error;
      if (s.catchClause === null || error.escalates) pending = error;
      else {
        const locals = new Map(ctx.locals);
        if (s.catchClause.errorName !== null) locals.set(s.catchClause.errorName, view(error.head));
        const frames: Frame[] = hasFinally ? [...ctx.frames, { kind: 'try', hasCatch: false, hasFinally: true }] : [...ctx.frames];
        try {
          result = yield* this.block(s.catchClause.body, { ...ctx, frames, locals, handling: error });
        } catch (inner) {
          if (inner instanceof Cancel) throw yield* this.unwind(s, ctx, inner);
          if (!(inner instanceof Failure)) throw inner;
          pending = inner;
        }
      }
    }
    if (s.finallyBody !== null) {
      try {
        yield* this.block(s.finallyBody, pending === null ? ctx : { ...ctx, frames: [...ctx.frames, { kind: 'finally', pending }] });
      } catch (fromFinally) {
        // A failing finally replaces what was pending and keeps it as its cause.
        if (fromFinally instanceof Failure && pending !== null) throw fromFinally.causedBy('finally-failed', pending);
        throw fromFinally;
      }
    }
    if (pending !== null) throw pending;
    return result;
  }

  /** The finally of a cancelled branch, in a cleanup frame; its failure travels with the cancel. */
  private *unwind(s: TryStmt, ctx: Ctx, cancel: Cancel): Generator<Yielded, Cancel, unknown> {
    if (s.finallyBody === null) return cancel;
    try {
      yield* this.block(s.finallyBody, { ...ctx, frames: [...ctx.frames, { kind: 'cleanup' }] });
      return cancel;
    } catch (error) {
      if (error instanceof Failure) return cancel.with([error]);
      if (error instanceof Cancel) return cancel.with(error.cleanups);
      throw error;
    }
  }
}
