import { readRegularFile } from '../../base/regular-file.js';
import type { Diagnostic } from '../syntax/ast.js';
import { sortDiagnostics } from '../syntax/diagnostics.js';
import { boundDiagnostics, flowText, MAX_FLOW_FILE_BYTES } from '../syntax/source.js';
import { parseFlow } from '../syntax/parser.js';
import type { CheckResult } from '../plan/plan.js';
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
  const errorCount = diagnostics.filter((d) => d.severity === 'error').length;
  return {
    ok: errorCount === 0,
    diagnostics: boundDiagnostics(diagnostics),
    errorCount,
    plan: parsed.syntaxOk ? validation.plan : null,
  };
}

/**
 * A flow file's text, or the result of a check that could not read it as one (missing, binary,
 * not UTF-8, not a regular file, larger than MAX_FLOW_FILE_BYTES). Read synchronously: it is one
 * bounded local file, and a FIFO or device is refused at the open rather than waited on.
 */
export async function readFlowFile(path: string, file = path): Promise<{ ok: true; source: string } | { ok: false; result: CheckResult }> {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(path, MAX_FLOW_FILE_BYTES);
  } catch (error) {
    const diagnostic: Diagnostic = { file, line: 1, column: 1, message: `cannot read the flow: ${readFailure(error)}`, severity: 'error' };
    return { ok: false, result: { ok: false, diagnostics: [diagnostic], errorCount: 1, plan: null } };
  }
  const text = flowText(bytes, file);
  if (!text.ok) return { ok: false, result: { ok: false, diagnostics: [text.diagnostic], errorCount: 1, plan: null } };
  return { ok: true, source: text.source };
}

/** `hivewatch check <file>`: the file's problems under its path (`file`: the name to report them under). */
export async function checkFlowFile(path: string, file = path): Promise<CheckResult> {
  const read = await readFlowFile(path, file);
  return read.ok ? checkFlow(read.source, file) : read.result;
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
