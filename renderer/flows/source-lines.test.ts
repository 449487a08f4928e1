import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../core/service/api.js';
import { diagnosticSummary } from './source-lines.js';

const d = (line: number, column: number, message = 'bad', severity: Diagnostic['severity'] = 'error'): Diagnostic => ({
  file: 'f.prose',
  line,
  column,
  message,
  severity,
});

describe('diagnosticSummary', () => {
  it('summarizes counts', () => {
    expect(diagnosticSummary([])).toBe('no problems');
    expect(diagnosticSummary([d(1, 1), d(2, 1, 'w', 'warning'), d(3, 1)])).toBe('2 errors, 1 warning');
  });
});
