import type { Statement } from '../../flow/syntax/ast.js';

/**
 * The channels a block declares for its own thread: its `let` / `const` and the named results of
 * the parallels it runs, at any depth, but not those inside the branches of those parallels
 * (each branch is a thread of its own). The engine declares them when the thread starts, so an
 * assignment that runs before its `let` in program order (`let x = parallel …` that failed, then
 * `x = "fallback"` in a catch) still writes the same channel.
 */
export interface Declaration {
  name: string;
  constant: boolean;
}

const cache = new WeakMap<object, Declaration[]>();

/** `body`: a block, or the one statement a parallel branch runs. */
export function declarationsIn(body: readonly Statement[] | Statement): Declaration[] {
  const known = cache.get(body);
  if (known) return known;
  const found = new Map<string, Declaration>();
  const add = (name: string, constant: boolean): void => {
    if (!found.has(name)) found.set(name, { name, constant });
  };
  const visit = (statement: Statement): void => {
    switch (statement.kind) {
      case 'bind':
        if (statement.binding !== 'assign') add(statement.name, statement.binding === 'const');
        if (statement.value.kind === 'parallel') visit(statement.value);
        return;
      case 'parallel':
        for (const branch of statement.branches) if (branch.name !== null) add(branch.name, false);
        return;
      case 'try':
        statement.body.forEach(visit);
        statement.catchClause?.body.forEach(visit);
        statement.finallyBody?.forEach(visit);
        return;
      case 'repeat':
      case 'do':
        statement.body.forEach(visit);
        return;
      case 'session':
      case 'throw':
        return;
    }
  };
  if (Array.isArray(body)) (body as readonly Statement[]).forEach(visit);
  else visit(body as Statement);
  const declarations = [...found.values()];
  cache.set(body, declarations);
  return declarations;
}
