import type { Diagnostic } from '../../core/service/api.js';

/** A flow's source split into numbered lines, each with the diagnostics that point into it. */
export interface SourceLine {
  n: number;
  text: string;
  diagnostics: Diagnostic[];
}

export function annotateSource(source: string, diagnostics: readonly Diagnostic[]): SourceLine[] {
  const texts = source.replace(/\r\n?/g, '\n').split('\n');
  if (texts.length > 1 && texts.at(-1) === '') texts.pop();
  const lines: SourceLine[] = texts.map((text, i) => ({ n: i + 1, text, diagnostics: [] }));
  if (lines.length === 0) lines.push({ n: 1, text: '', diagnostics: [] });
  const sorted = [...diagnostics].sort((a, b) => a.line - b.line || a.column - b.column);
  for (const d of sorted) {
    const index = Math.min(Math.max(1, d.line), lines.length) - 1;
    (lines[index] as SourceLine).diagnostics.push(d);
  }
  return lines;
}

/** Spaces up to a 1-based column, tabs kept so the caret lines up under tabbed text. */
export function caretPadding(text: string, column: number): string {
  const upto = text.slice(0, Math.max(0, column - 1));
  return upto.replace(/[^\t]/g, ' ') + ' '.repeat(Math.max(0, column - 1 - upto.length));
}

export function diagnosticSummary(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (diagnostics.length === 0) return 'no problems';
  return [errors ? `${errors} error${errors === 1 ? '' : 's'}` : '', warnings ? `${warnings} warning${warnings === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
}
