import type { ParallelStmt, Position, Statement } from '../syntax/ast.js';
import type { ChannelSpec } from '../plan/plan.js';
import type { Report } from './properties.js';

/**
 * The channels of a flow: every name declared by `let`, `const` and named parallel branches, at
 * any depth, and the checks on the writes to them that can be made before a run:
 *
 * - a name is declared once in a scope (a `let` inside a parallel branch is local to the branch);
 * - an assignment `x = …` names a declared variable that is visible where it stands, not a const
 *   and not a parallel branch's result;
 * - no two branches of one parallel write the same outer variable: branches run concurrently, so
 *   their writes could land in one step and be refused there (rule 7).
 *
 * Keys follow the engine: a global is its name, a branch-local is `name@<branch path>` with the
 * branch path built as the interpreter builds it.
 */

type DeclarationKind = 'let' | 'const' | 'branch';

export interface ChannelDeclaration extends ChannelSpec {
  /** Where the name was first bound. */
  pos: Position;
}

interface Declared {
  channel: ChannelDeclaration;
  kind: DeclarationKind;
  /** The thread path it belongs to ('' for a global). */
  path: string;
  /** The parallel statement whose branch named it, for duplicate branch names. */
  parallel: object | null;
}

/** A parallel being walked through: which branch, and where that branch's thread starts. */
interface OpenBranch {
  parallel: ParallelStmt;
  index: number;
  path: string;
}

const at = (pos: Position): string => `${pos.line}:${pos.column}`;
const keyOf = (name: string, path: string): string => (path === '' ? name : `${name}@${path}`);
const within = (path: string, branch: string): boolean => path === branch || path.startsWith(`${branch}/`);
const branchPathOf = (parent: string, parallel: ParallelStmt, index: number): string =>
  `${parent}${parent ? '/' : ''}p${parallel.pos.line}:${parallel.pos.column}b${index}`;

/** One walk over a flow's statements: its declarations first, then its writes. */
class ChannelCollector {
  private readonly declared = new Map<string, Declared>();

  constructor(
    private readonly report: Report,
    private readonly assumeDeclared: ReadonlySet<string>,
  ) {}

  collect(body: readonly Statement[]): ChannelDeclaration[] {
    this.walkDeclarations(body, false, '');
    this.walkWrites(body, '', []);
    this.reportCollisions();
    return [...this.declared.values()].map((d) => d.channel);
  }

  /** The declaration a name resolves to from a thread: its own branch's, an enclosing branch's, then the global. */
  private resolve(name: string, path: string): Declared | undefined {
    for (let p = path; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
      const found = this.declared.get(keyOf(name, p));
      if (found || p === '') return found;
    }
  }

  private declare(name: string, kind: DeclarationKind, pos: Position, inRepeat: boolean, path: string, parallel: object | null): void {
    // A let / const inside a branch is local to it; a branch result lives where its parallel runs.
    const first = kind === 'branch' ? this.declared.get(keyOf(name, path)) : (this.declared.get(name) ?? this.declared.get(keyOf(name, path)));
    if (!first) {
      const scope = path !== '' || kind === 'branch' ? 'branch' : 'global';
      this.declared.set(keyOf(name, path), { channel: { name, constant: kind === 'const', scope, pos }, kind, path, parallel });
      // A repeat runs its body again, and a const may be written once per run.
      if (kind === 'const' && inRepeat) this.report(`const "${name}" is inside a repeat, so it would be assigned on every iteration: use let`, pos);
      return;
    }
    const where = at(first.channel.pos);
    if (kind !== 'branch') {
      this.report(
        first.kind === 'branch'
          ? `"${name}" names the result of the parallel branch at ${where}: give the variable a name of its own`
          : `"${name}" is already declared at ${where}: assign it with ${name} = ... instead of declaring it again`,
        pos,
      );
    } else if (first.kind !== 'branch') {
      this.report(`parallel branch "${name}" reuses the name of the variable declared at ${where}: give the branch a name of its own`, pos);
    } else if (first.parallel === parallel) {
      this.report(`duplicate branch name "${name}" in this parallel: the first is at ${where}`, pos);
    }
  }

  private walkDeclarations(statements: readonly Statement[] | Statement, inRepeat: boolean, path: string): void {
    const visit = (statement: Statement): void => {
      switch (statement.kind) {
        case 'bind':
          if (statement.binding !== 'assign') this.declare(statement.name, statement.binding, statement.namePos ?? statement.pos, inRepeat, path, null);
          if (statement.value.kind === 'parallel') visit(statement.value);
          return;
        case 'parallel':
          statement.branches.forEach((branch, index) => {
            if (branch.name !== null) this.declare(branch.name, 'branch', branch.pos, inRepeat, path, statement);
            this.walkDeclarations(branch.body, inRepeat, branchPathOf(path, statement, index));
          });
          return;
        case 'try':
          this.walkDeclarations(statement.body, inRepeat, path);
          if (statement.catchClause) this.walkDeclarations(statement.catchClause.body, inRepeat, path);
          if (statement.finallyBody) this.walkDeclarations(statement.finallyBody, inRepeat, path);
          return;
        case 'repeat':
          this.walkDeclarations(statement.body, true, path);
          return;
        case 'do':
          this.walkDeclarations(statement.body, inRepeat, path);
          return;
        case 'session':
        case 'throw':
          return;
      }
    };
    if (Array.isArray(statements)) (statements as readonly Statement[]).forEach(visit);
    else visit(statements as Statement);
  }

  /** Per parallel and outer key: the branches that write it, with the first write of each. */
  private readonly writers = new Map<ParallelStmt, Map<string, { name: string; writes: Map<number, Position> }>>();

  private noteWrite(name: string, key: string, declaredIn: string, pos: Position, open: readonly OpenBranch[]): void {
    for (const branch of open) {
      if (within(declaredIn, branch.path)) continue;
      const byKey = this.writers.get(branch.parallel) ?? new Map<string, { name: string; writes: Map<number, Position> }>();
      this.writers.set(branch.parallel, byKey);
      const entry = byKey.get(key) ?? { name, writes: new Map<number, Position>() };
      byKey.set(key, entry);
      if (!entry.writes.has(branch.index)) entry.writes.set(branch.index, pos);
    }
  }

  private assign(name: string, pos: Position, path: string, open: readonly OpenBranch[]): void {
    const target = this.resolve(name, path);
    if (!target) {
      if (!this.assumeDeclared.has(name)) {
        this.report(`assignment to undeclared variable "${name}": declare it first with let ${name} = ... (or const)`, pos);
      }
      return;
    }
    const where = at(target.channel.pos);
    if (target.kind === 'const') this.report(`cannot assign to const "${name}": it is declared at ${where}`, pos);
    else if (target.kind === 'branch') this.report(`"${name}" names the result of the parallel branch at ${where}: give the variable a name of its own`, pos);
    else this.noteWrite(name, keyOf(name, target.path), target.path, pos, open);
  }

  private walkWrites(statements: readonly Statement[] | Statement, path: string, open: readonly OpenBranch[]): void {
    const visit = (statement: Statement): void => {
      switch (statement.kind) {
        case 'bind':
          if (statement.value.kind === 'parallel') visit(statement.value);
          if (statement.binding === 'assign') this.assign(statement.name, statement.namePos ?? statement.pos, path, open);
          else this.noteWrite(statement.name, keyOf(statement.name, path), path, statement.pos, open);
          return;
        case 'parallel':
          statement.branches.forEach((branch, index) => {
            const branchPath = branchPathOf(path, statement, index);
            if (branch.name !== null) this.noteWrite(branch.name, keyOf(branch.name, path), path, branch.pos, open);
            this.walkWrites(branch.body, branchPath, [...open, { parallel: statement, index, path: branchPath }]);
          });
          return;
        case 'try':
          this.walkWrites(statement.body, path, open);
          if (statement.catchClause) this.walkWrites(statement.catchClause.body, path, open);
          if (statement.finallyBody) this.walkWrites(statement.finallyBody, path, open);
          return;
        case 'repeat':
        case 'do':
          this.walkWrites(statement.body, path, open);
          return;
        case 'session':
        case 'throw':
          return;
      }
    };
    if (Array.isArray(statements)) (statements as readonly Statement[]).forEach(visit);
    else visit(statements as Statement);
  }

  /** Writes of one outer variable by two branches of one parallel (rule 7). */
  private reportCollisions(): void {
    for (const [parallel, byKey] of this.writers) {
      for (const { name, writes } of byKey.values()) {
        if (writes.size < 2) continue;
        const [first, second] = [...writes.values()].sort((a, b) => a.line - b.line || a.column - b.column) as [Position, Position];
        this.report(
          `"${name}" is written by more than one branch of the parallel at ${at(parallel.pos)} (at ${at(first)} and ${at(second)}): ` +
            'branches run concurrently, so their writes could collide; give each branch a variable of its own (a named branch, or a let inside the branch)',
          second,
        );
      }
    }
  }
}

export function collectChannels(body: readonly Statement[], report: Report, assumeDeclared: ReadonlySet<string> = new Set()): ChannelDeclaration[] {
  return new ChannelCollector(report, assumeDeclared).collect(body);
}
