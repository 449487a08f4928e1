import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { ParallelStmt, Program, Statement, TryStmt } from '../syntax/ast.js';

/**
 * How many steps a flow takes (docs/semantics.md "The model in one paragraph": a step is the
 * frontier of sessions every thread is parked on, so a sequence adds its statements' steps, a
 * parallel takes as many as its longest branch, `repeat N` N times its body, and a string, an
 * assignment of one or a `throw` none). The flow language has no loop of unknown length and no
 * condition, so the count is known before the run:
 *
 * - `expected`: the steps of a run in which no session fails (a `throw` the flow always reaches
 *   still throws: its catch runs, the rest of its block does not);
 * - `most`: the steps any run can take, catch blocks included (a failure ends a block early, a
 *   caught one adds its catch's steps, a finally always runs). Equal to `expected` for a flow
 *   whose catch blocks hold no session.
 *
 * A flow that reaches no session but writes a channel commits the writes in a step of its own.
 *
 * The one flow it cannot count is a fail-fast parallel with a branch that always throws: where
 * its siblings stop, and how many cleanup steps their finally blocks take, depends on timing.
 * Such a flow has no count (null); the window then shows the step alone.
 */
export interface FlowSteps {
  expected: number;
  most: number;
}

interface Count {
  /** Steps when no session fails. */
  ok: number;
  /** Whether that path ends in a throw. */
  throws: boolean;
  /** Whether that path writes a channel (what a flow with no session commits in a step). */
  writes: boolean;
  most: number;
}

/** Thrown where timing decides the count; `flowSteps` catches it and answers null. */
class Uncountable extends HivewatchError {
  constructor() {
    super('SYSTEM_STEPS_UNCOUNTABLE', { message: '' });
    this.name = 'Uncountable';
  }
}

const NONE: Count = { ok: 0, throws: false, writes: false, most: 0 };

function sequence(body: readonly Statement[]): Count {
  let ok = 0;
  let most = 0;
  let throws = false;
  let writes = false;
  for (const s of body) {
    const c = statement(s);
    if (!throws) {
      ok += c.ok;
      throws = c.throws;
      writes ||= c.writes;
    }
    most += c.most;
  }
  return { ok, throws, writes, most };
}

function parallel(s: ParallelStmt): Count {
  const branches = s.branches.map((b) => statement(b.body));
  // A throwing branch of a fail-fast parallel stops its siblings wherever timing finds them.
  if (s.onFail === 'fail-fast' && branches.some((b) => b.throws)) throw new Uncountable();
  // A continue or ignore parallel catches its branches' throws.
  const writes = branches.some((b) => b.writes) || s.branches.some((b) => b.name !== null);
  return { ok: Math.max(0, ...branches.map((b) => b.ok)), throws: false, writes, most: Math.max(0, ...branches.map((b) => b.most)) };
}

function tryStatement(s: TryStmt): Count {
  const body = sequence(s.body);
  const caught = s.catchClause ? sequence(s.catchClause.body) : NONE;
  const cleanup = s.finallyBody ? sequence(s.finallyBody) : NONE;
  const most = body.most + caught.most + cleanup.most;
  const writes = body.writes || cleanup.writes;
  if (!body.throws) return { ok: body.ok + cleanup.ok, throws: cleanup.throws, writes, most };
  if (!s.catchClause) return { ok: body.ok + cleanup.ok, throws: true, writes, most };
  return { ok: body.ok + caught.ok + cleanup.ok, throws: caught.throws || cleanup.throws, writes: writes || caught.writes, most };
}

function statement(s: Statement): Count {
  switch (s.kind) {
    case 'session':
      return { ok: 1, throws: false, writes: false, most: 1 };
    case 'bind':
      return s.value.kind === 'string' ? { ...NONE, writes: true } : { ...statement(s.value), writes: true };
    case 'throw':
      return { ok: 0, throws: true, writes: false, most: 0 };
    case 'parallel':
      return parallel(s);
    case 'try':
      return tryStatement(s);
    case 'repeat': {
      const once = sequence(s.body);
      // A body that always throws ends the loop in its first round.
      return { ok: once.throws ? once.ok : once.ok * s.count, throws: once.throws, writes: once.writes, most: once.most * s.count };
    }
    case 'do':
      return sequence(s.body);
  }
}

function hasBind(body: readonly Statement[]): boolean {
  return body.some((s) => {
    switch (s.kind) {
      case 'bind':
        return true;
      case 'parallel':
        return s.branches.some((b) => b.name !== null || hasBind([b.body]));
      case 'try':
        return hasBind(s.body) || hasBind(s.catchClause?.body ?? []) || hasBind(s.finallyBody ?? []);
      case 'repeat':
      case 'do':
        return hasBind(s.body);
      default:
        return false;
    }
  });
}

/** The flow's step count (see the module comment), or null when timing decides it. */
export function flowSteps(program: Pick<Program, 'body'>): FlowSteps | null {
  try {
    const count = sequence(program.body);
    const expected = count.ok === 0 && count.writes ? 1 : count.ok;
    // Any write may be the one a session-less path commits: one step at least.
    return { expected, most: Math.max(count.most, expected, hasBind(program.body) ? 1 : 0) };
  } catch (error) {
    if (error instanceof Uncountable) return null;
    throw error;
  }
}
