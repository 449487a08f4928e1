import { formatDiagnostic } from '../../flow/syntax/ast.js';
import { checkFlowFile } from '../../flow/check/check.js';
import { ExitCode, type CliIo } from '../io.js';

export async function checkCommand(file: string, io: CliIo, json: boolean): Promise<number> {
  const result = await checkFlowFile(file);
  if (json) {
    io.out(`${JSON.stringify({ ok: result.ok, diagnostics: result.diagnostics, errorCount: result.errorCount })}\n`);
  } else {
    for (const d of result.diagnostics) io.err(`${formatDiagnostic(d)}${d.severity === 'warning' ? ' (warning)' : ''}\n`);
    if (result.ok) io.out(`${file}: ok (${result.plan?.sessions.length ?? 0} sessions)\n`);
    else io.err(`${result.errorCount} error(s)\n`);
  }
  // Warnings alone (a CLI that retries inside an attempt it cannot be told not to) do not fail the check.
  return result.ok ? ExitCode.ok : ExitCode.invalid;
}
