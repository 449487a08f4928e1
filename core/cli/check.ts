import { formatDiagnostic } from '../flow/ast.js';
import { checkFlowFile } from '../flow/check.js';
import type { CliIo } from './io.js';

export async function checkCommand(file: string, io: CliIo, json: boolean): Promise<number> {
  const result = await checkFlowFile(file);
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (json) {
    io.out(`${JSON.stringify({ ok: result.ok, diagnostics: result.diagnostics })}\n`);
  } else {
    for (const d of result.diagnostics) io.err(`${formatDiagnostic(d)}${d.severity === 'warning' ? ' (warning)' : ''}\n`);
    if (result.ok) io.out(`${file}: ok (${result.plan?.sessions.length ?? 0} sessions)\n`);
    else io.err(`${errors.length} error(s)\n`);
  }
  return result.ok ? 0 : 2;
}
