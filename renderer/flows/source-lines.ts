import type { Diagnostic } from '../../core/service/api.js';

/** "2 errors, 1 warning" for a list of diagnostics; "no problems" for none. */
export function diagnosticSummary(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (diagnostics.length === 0) return 'no problems';
  return [errors ? `${errors} error${errors === 1 ? '' : 's'}` : '', warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : '']
    .filter(Boolean)
    .join(', ');
}
