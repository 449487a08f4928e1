import type { Statement } from '../../flow/syntax/ast.js';

/** How the reference model names channels and shows values, as docs/semantics.md rules 7 and 7b say. */

export const keyOf = (name: string, path: string): string => (path === '' ? name : `${name}@${path}`);
export const parentPath = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/** A value as `{name}` renders it. */
export function format(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** Every channel key the flow declares: `let`/`const` where they stand, branch results where their parallel runs. */
export function declaredKeys(body: readonly Statement[]): Set<string> {
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
