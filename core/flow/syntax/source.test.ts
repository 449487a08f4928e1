import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertProperty } from '../../testing/property.js';
import type { Diagnostic } from './ast.js';
import { checkFlow, checkFlowFile } from '../check/check.js';
import { boundDiagnostics, firstInvalidUtf8, flowText, MAX_LISTED_DIAGNOSTICS, notTextReason } from './source.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-source-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('what a text flow file is', () => {
  it('agrees with a strict UTF-8 decoder on any bytes, and points at the first bad one', async () => {
    const strict = new TextDecoder('utf-8', { fatal: true });
    await assertProperty(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 16 }), (noise, text) => {
        for (const bytes of [noise, new TextEncoder().encode(text), Uint8Array.from([...new TextEncoder().encode(text), ...noise])]) {
          let valid = true;
          try {
            strict.decode(bytes);
          } catch {
            valid = false;
          }
          const at = firstInvalidUtf8(bytes);
          expect(at === -1).toBe(valid);
          if (at !== -1) {
            // Everything before the offset decodes; the offset itself starts no valid sequence.
            expect(() => strict.decode(bytes.subarray(0, at))).not.toThrow();
            expect(() => strict.decode(bytes.subarray(at, at + 4))).toThrow();
          }
        }
      }),
      { seed: 24001, numRuns: 200 },
    );
  });

  it('names the NUL byte of a binary, and the offset of an invalid sequence', () => {
    expect(notTextReason(Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]))).toBe('it holds a NUL byte at byte 7, so it is binary');
    // "café" in Latin-1: 0xe9 starts a 3-byte sequence that does not follow.
    expect(notTextReason(Buffer.from('caf\xe9 session "x"\n', 'latin1'))).toBe('it is not UTF-8 (an invalid byte sequence at byte 3)');
    // Overlong, surrogate and beyond-U+10FFFF forms are not UTF-8 either.
    for (const bad of [
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
    ])
      expect(firstInvalidUtf8(Uint8Array.from(bad))).toBe(0);
    expect(notTextReason(new TextEncoder().encode('session "héllo ✓ 🐝"\n'))).toBeNull();
    expect(flowText(Buffer.from('session "x"\n'), 'f.prose')).toEqual({ ok: true, source: 'session "x"\n' });
  });

  it('a binary given to check gets one clear error, not a diagnostic per byte', async () => {
    const file = join(dir, 'a.out');
    writeFileSync(file, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]), Buffer.alloc(300_000, 0x0a), Buffer.from('(((((')]));
    const result = await checkFlowFile(file);
    expect(result).toEqual({
      ok: false,
      errorCount: 1,
      plan: null,
      diagnostics: [{ file, line: 1, column: 1, severity: 'error', message: `not a text flow file: ${file} (it holds a NUL byte at byte 4, so it is binary)` }],
    });
  });
});

describe('how many problems a check lists', () => {
  const problem = (line: number, severity: Diagnostic['severity'] = 'error'): Diagnostic => ({
    file: 'f.prose',
    line,
    column: 1,
    message: `problem ${line}`,
    severity,
  });

  it('at most the limit, then one "… and N more" at the first left out, counting its errors', () => {
    const many = Array.from({ length: 120 }, (_, i) => problem(i + 1, i % 3 === 0 ? 'warning' : 'error'));
    const bounded = boundDiagnostics(many);
    expect(bounded).toHaveLength(MAX_LISTED_DIAGNOSTICS + 1);
    expect(bounded.slice(0, MAX_LISTED_DIAGNOSTICS)).toEqual(many.slice(0, MAX_LISTED_DIAGNOSTICS));
    expect(bounded.at(-1)).toEqual({
      file: 'f.prose',
      line: 51,
      column: 1,
      severity: 'error',
      message: `… and 70 more problems (47 errors; only the first ${MAX_LISTED_DIAGNOSTICS} are listed)`,
    });
    expect(boundDiagnostics(many.slice(0, MAX_LISTED_DIAGNOSTICS))).toEqual(many.slice(0, MAX_LISTED_DIAGNOSTICS));
    expect(boundDiagnostics([...many.slice(0, 2), problem(3, 'warning')], 2).at(-1)).toMatchObject({
      severity: 'warning',
      message: '… and 1 more problem (0 errors; only the first 2 are listed)',
    });
  });

  it('a large text that is not a flow checks to a bounded list with the full count', () => {
    const garbage = Array.from({ length: 5_000 }, (_, i) => `}}} ${i} ((( "open`).join('\n');
    const result = checkFlow(garbage, 'garbage.prose');
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toHaveLength(MAX_LISTED_DIAGNOSTICS + 1);
    expect(result.errorCount).toBeGreaterThan(5_000);
    expect(result.diagnostics.at(-1)?.message).toMatch(new RegExp(`^… and ${result.errorCount - MAX_LISTED_DIAGNOSTICS} more problems`));
  });
});
