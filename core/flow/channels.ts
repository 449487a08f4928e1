import type { ParallelStmt, Position, Statement } from './ast.js';
import type { ChannelSpec } from './plan.js';
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

export function collectChannels(body: readonly Statement[], report: Report, assumeDeclared: ReadonlySet<string> = new Set()): ChannelDeclaration[] {
  const declared = new Map<string, Declared>();

  /** The declaration a name resolves to from a thread: its own branch's, an enclosing branch's, then the global. */
  const resolve = (name: string, path: string): Declared | undefined => {
    for (let p = path; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
      const found = declared.get(keyOf(name, p));
      if (found || p === '') return found;
    }
  };

  const declare = (name: string, kind: DeclarationKind, pos: Position, inRepeat: boolean, path: string, parallel: object | null): void => {
    // A let / const inside a branch is local to it; a branch result lives where its parallel runs.
    const first = kind === 'branch' ? declared.get(keyOf(name, path)) : (declared.get(name) ?? declared.get(keyOf(name, path)));
    if (!first) {
      const scope = path !== '' || kind === 'branch' ? 'branch' : 'global';
      declared.set(keyOf(name, path), { channel: { name, constant: kind === 'const', scope, pos }, kind, path, parallel });
      // A repeat runs its body again, and a const may be written once per run.
      if (kind === 'const' && inRepeat) report(`const "${name}" is inside a repeat, so it would be assigned on every iteration: use let`, pos);
      return;
    }
    const where = at(first.channel.pos);
    if (kind !== 'branch') {
      report(
        first.kind === 'branch'
          ? `"${name}" names the result of the parallel branch at ${where}: give the variable a name of its own`
          : `"${name}" is already declared at ${where}: assign it with ${name} = ... instead of declaring it again`,
        pos,
      );
    } else if (first.kind !== 'branch') {
      report(`parallel branch "${name}" reuses the name of the variable declared at ${where}: give the branch a name of its own`, pos);
    } else if (first.parallel === parallel) {
      report(`duplicate branch name "${name}" in this parallel: the first is at ${where}`, pos);
    }
  };

  const walkDeclarations = (statements: readonly Statement[] | Statement, inRepeat: boolean, path: string): void => {
    const visit = (statement: Statement): void => {
      switch (statement.kind) {
        case 'bind':
          if (statement.binding !== 'assign') declare(statement.name, statement.binding, statement.namePos ?? statement.pos, inRepeat, path, null);
          if (statement.value.kind === 'parallel') visit(statement.value);
          return;
        case 'parallel':
          statement.branches.forEach((branch, index) => {
            if (branch.name !== null) declare(branch.name, 'branch', branch.pos, inRepeat, path, statement);
            walkDeclarations(branch.body, inRepeat, branchPathOf(path, statement, index));
          });
          return;
        case 'try':
          walkDeclarations(statement.body, inRepeat, path);
          if (statement.catchClause) walkDeclarations(statement.catchClause.body, inRepeat, path);
          if (statement.finallyBody) walkDeclarations(statement.finallyBody, inRepeat, path);
          return;
        case 'repeat':
          walkDeclarations(statement.body, true, path);
          return;
        case 'do':
          walkDeclarations(statement.body, inRepeat, path);
          return;
        case 'session':
        case 'throw':
          return;
      }
    };
    if (Array.isArray(statements)) (statements as readonly Statement[]).forEach(visit);
    else visit(statements as Statement);
  };

  /** Per parallel and outer key: the branches that write it, with the first write of each. */
  const writers = new Map<ParallelStmt, Map<string, { name: string; writes: Map<number, Position> }>>();

  const noteWrite = (name: string, key: string, declaredIn: string, pos: Position, open: readonly OpenBranch[]): void => {
    for (const branch of open) {
      if (within(declaredIn, branch.path)) continue;
      const byKey = writers.get(branch.parallel) ?? new Map<string, { name: string; writes: Map<number, Position> }>();
      writers.set(branch.parallel, byKey);
      const entry = byKey.get(key) ?? { name, writes: new Map<number, Position>() };
      byKey.set(key, entry);
      if (!entry.writes.has(branch.index)) entry.writes.set(branch.index, pos);
    }
  };

  const assign = (name: string, pos: Position, path: string, open: readonly OpenBranch[]): void => {
    const target = resolve(name, path);
    if (!target) {
      if (!assumeDeclared.has(name)) {
        report(`assignment to undeclared variable "${name}": declare it first with let ${name} = ... (or const)`, pos);
      }
      return;
    }
    const where = at(target.channel.pos);
    if (target.kind === 'const') report(`cannot assign to const "${name}": it is declared at ${where}`, pos);
    else if (target.kind === 'branch') report(`"${name}" names the result of the parallel branch at ${where}: give the variable a name of its own`, pos);
    else noteWrite(name, keyOf(name, target.path), target.path, pos, open);
  };

  const walkWrites = (statements: readonly Statement[] | Statement, path: string, open: readonly OpenBranch[]): void => {
    const visit = (statement: Statement): void => {
      switch (statement.kind) {
        case 'bind':
          if (statement.value.kind === 'parallel') visit(statement.value);
          if (statement.binding === 'assign') assign(statement.name, statement.namePos ?? statement.pos, path, open);
          else noteWrite(statement.name, keyOf(statement.name, path), path, statement.pos, open);
          return;
        case 'parallel':
          statement.branches.forEach((branch, index) => {
            const branchPath = branchPathOf(path, statement, index);
            if (branch.name !== null) noteWrite(branch.name, keyOf(branch.name, path), path, branch.pos, open);
            walkWrites(branch.body, branchPath, [...open, { parallel: statement, index, path: branchPath }]);
          });
          return;
        case 'try':
          walkWrites(statement.body, path, open);
          if (statement.catchClause) walkWrites(statement.catchClause.body, path, open);
          if (statement.finallyBody) walkWrites(statement.finallyBody, path, open);
          return;
        case 'repeat':
        case 'do':
          walkWrites(statement.body, path, open);
          return;
        case 'session':
        case 'throw':
          return;
      }
    };
    if (Array.isArray(statements)) (statements as readonly Statement[]).forEach(visit);
    else visit(statements as Statement);
  };

  walkDeclarations(body, false, '');
  walkWrites(body, '', []);
  for (const [parallel, byKey] of writers) {
    for (const { name, writes } of byKey.values()) {
      if (writes.size < 2) continue;
      const [first, second] = [...writes.values()].sort((a, b) => a.line - b.line || a.column - b.column) as [Position, Position];
      report(
        `"${name}" is written by more than one branch of the parallel at ${at(parallel.pos)} (at ${at(first)} and ${at(second)}): ` +
          'branches run concurrently, so their writes could collide; give each branch a variable of its own (a named branch, or a let inside the branch)',
        second,
      );
    }
  }
  return [...declared.values()].map((d) => d.channel);
}
