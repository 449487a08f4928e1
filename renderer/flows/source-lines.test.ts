import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../core/service/api.js';
import { annotateSource, caretPadding, diagnosticSummary } from './source-lines.js';

const d = (line: number, column: number, message = 'bad', severity: Diagnostic['severity'] = 'error'): Diagnostic => ({ file: 'f.prose', line, column, message, severity });

describe('annotateSource', () => {
  it('numbers lines and puts each diagnostic under its line, in column order', () => {
    const lines = annotateSource('a\nb\r\nc\n', [d(2, 5, 'second'), d(2, 1, 'first'), d(1, 1)]);
    expect(lines.map((l) => [l.n, l.text, l.diagnostics.map((x) => x.message)])).toEqual([
      [1, 'a', ['bad']],
      [2, 'b', ['first', 'second']],
      [3, 'c', []],
    ]);
  });

  it('attaches a diagnostic past the end to the last line', () => {
    const lines = annotateSource('only', [d(9, 1, 'eof')]);
    expect(lines[0]?.diagnostics.map((x) => x.message)).toEqual(['eof']);
    expect(annotateSource('', [d(1, 1)])).toHaveLength(1);
  });

  it('pads the caret to the column, keeping tabs', () => {
    expect(caretPadding('\tsession "x"', 3)).toBe('\t ');
    expect(caretPadding('ab', 5)).toBe('    ');
  });

  it('summarizes counts', () => {
    expect(diagnosticSummary([])).toBe('no problems');
    expect(diagnosticSummary([d(1, 1), d(2, 1, 'w', 'warning'), d(3, 1)])).toBe('2 errors, 1 warning');
  });
});
