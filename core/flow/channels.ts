import type { Position, Statement } from './ast.js';
import type { ChannelSpec } from './plan.js';
import type { Report } from './properties.js';

/**
 * The channels of a flow: every name bound by `let`, `const`, `x = ...` and by named parallel
 * branches, at any depth. Channels are run-wide (DESIGN §2), so a name is declared once for the
 * whole flow, whatever block it appears in; this pass also reports bindings that contradict each
 * other (a const written twice, a name that is both a variable and a branch result).
 */

type BindingKind = 'let' | 'const' | 'assign' | 'branch';

export interface ChannelDeclaration extends ChannelSpec {
  /** Where the name was first bound. */
  pos: Position;
}

interface Seen {
  channel: ChannelDeclaration;
  /** The parallel statement whose branch first bound it, for duplicate branch names. */
  parallel: object | null;
}

const at = (pos: Position): string => `${pos.line}:${pos.column}`;

export function collectChannels(body: readonly Statement[], report: Report): ChannelDeclaration[] {
  const seen = new Map<string, Seen>();

  // `let`/`const` inside a parallel branch declare a branch-local channel (one per branch, as the
  // engine keys them `name@branch`); everything else is global. `path` is the branch path.
  const lookup = (name: string, path: string): Seen | undefined => {
    for (let p = path; ; p = p.slice(0, Math.max(0, p.lastIndexOf('/')))) {
      const found = seen.get(p === '' ? name : `${name}@${p}`);
      if (found || p === '') return found;
    }
  };

  const bind = (name: string, kind: BindingKind, pos: Position, inRepeat: boolean, parallel: object | null, path: string): void => {
    const local = path !== '' && (kind === 'let' || kind === 'const');
    const first = local ? (seen.get(name) ?? seen.get(`${name}@${path}`)) : lookup(name, path);
    if (!first) {
      const channel = { name, constant: kind === 'const', scope: kind === 'branch' || local ? 'branch' : 'global', pos } as const;
      seen.set(local ? `${name}@${path}` : name, { channel, parallel });
      // A repeat runs its body again, and a const may be written once per run.
      if (kind === 'const' && inRepeat) report(`const "${name}" is inside a repeat, so it would be assigned on every iteration: use let`, pos);
      return;
    }
    const where = at(first.channel.pos);
    if (first.channel.constant) {
      report(`cannot assign to const "${name}": it is declared at ${where}`, pos);
    } else if (kind === 'let' || kind === 'const') {
      report(`"${name}" is already declared at ${where}: assign it with ${name} = ... instead of declaring it again`, pos);
    } else if (kind === 'branch' && first.channel.scope !== 'branch') {
      report(`parallel branch "${name}" reuses the name of the variable declared at ${where}: give the branch a name of its own`, pos);
    } else if (kind !== 'branch' && first.channel.scope === 'branch') {
      report(`"${name}" names the result of the parallel branch at ${where}: give the variable a name of its own`, pos);
    } else if (kind === 'branch' && first.parallel === parallel) {
      report(`duplicate branch name "${name}" in this parallel: the first is at ${where}`, pos);
    }
  };

  const walk = (statements: readonly Statement[], inRepeat: boolean, path: string): void => {
    for (const statement of statements) visit(statement, inRepeat, path);
  };

  const visit = (statement: Statement, inRepeat: boolean, path: string): void => {
    switch (statement.kind) {
      case 'bind':
        bind(statement.name, statement.binding, statement.namePos ?? statement.pos, inRepeat, null, path);
        if (statement.value.kind !== 'string') visit(statement.value, inRepeat, path);
        return;
      case 'parallel':
        statement.branches.forEach((branch, index) => {
          if (branch.name !== null) bind(branch.name, 'branch', branch.pos, inRepeat, statement, path);
          const branchPath = `${path}${path ? '/' : ''}p${statement.pos.line}:${statement.pos.column}b${index}`;
          visit(branch.body, inRepeat, branchPath);
        });
        return;
      case 'try':
        walk(statement.body, inRepeat, path);
        if (statement.catchClause) walk(statement.catchClause.body, inRepeat, path);
        if (statement.finallyBody) walk(statement.finallyBody, inRepeat, path);
        return;
      case 'repeat':
        walk(statement.body, true, path);
        return;
      case 'do':
        walk(statement.body, inRepeat, path);
        return;
      case 'session':
      case 'throw':
        return;
    }
  };

  walk(body, false, '');
  return [...seen.values()].map((s) => s.channel);
}
