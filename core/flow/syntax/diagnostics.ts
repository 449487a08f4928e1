import type { Diagnostic } from './ast.js';

/**
 * By line, then column, as an editor lists them; the same problem reported twice at one place
 * is kept once. The sort is stable: problems at one position keep the order they were found in.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique = diagnostics.filter((d) => {
    const key = `${d.line}:${d.column}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort((a, b) => a.line - b.line || a.column - b.column);
}
