import { readFile } from 'node:fs/promises';
import type { Diagnostic } from './ast.js';
import { sortDiagnostics } from './diagnostics.js';
import { parseFlow } from './parser.js';
import type { CheckResult } from './plan.js';
import { validateProgram } from './validate.js';

/**
 * `hivewatch check` and the step before every run: lex, parse, validate, and report every
 * problem of the file at its line and column, sorted as an editor would list them.
 */

export function checkFlow(source: string, file: string): CheckResult {
  const parsed = parseFlow(source, file);
  // Validation runs on the recovered tree even after syntax errors, so one check shows all the
  // problems; names that a skipped line declared are assumed, to avoid follow-on reports.
  const validation = validateProgram(parsed.program, { assumeDeclared: parsed.recovered });
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...validation.diagnostics]);
  return {
    ok: !diagnostics.some((d) => d.severity === 'error'),
    diagnostics,
    plan: parsed.syntaxOk ? validation.plan : null,
  };
}

export async function checkFlowFile(path: string): Promise<CheckResult> {
  let source: string;
  try {
    source = await readFile(path, 'utf8');
  } catch (error) {
    const diagnostic: Diagnostic = { file: path, line: 1, column: 1, message: `cannot read the flow: ${readFailure(error)}`, severity: 'error' };
    return { ok: false, diagnostics: [diagnostic], plan: null };
  }
  return checkFlow(source, path);
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
