import { describe, expect, it } from 'vitest';
import type { Diagnostic, HighlightSpan } from '../../../core/service/api.js';
import { caretPadding, lineMap, offsetAt, placeDiagnostics, spanRanges } from './source-positions.js';

const d = (line: number, column: number, message = 'bad', severity: Diagnostic['severity'] = 'error'): Diagnostic => ({
  file: 'f.prose',
  line,
  column,
  message,
  severity,
});
const span = (line: number, column: number, length: number, kind: HighlightSpan['kind']): HighlightSpan => ({ line, column, length, kind });

describe('lineMap and offsetAt', () => {
  it('finds a line and column in text split at \\n, \\r\\n and \\r', () => {
    const text = 'ab\r\ncd\ref\ngh';
    const map = lineMap(text);
    expect(map.starts).toEqual([0, 4, 7, 10]);
    expect(map.lengths).toEqual([2, 2, 2, 2]);
    expect(text[offsetAt(map, 2, 2)]).toBe('d');
    expect(text[offsetAt(map, 3, 1)]).toBe('e');
    expect(text[offsetAt(map, 4, 2)]).toBe('h');
  });

  it('clamps a place past a line or past the text to its end, and before it to its start', () => {
    const text = 'agent a:\n  runtime: "fake"\n';
    const map = lineMap(text);
    expect(offsetAt(map, 1, 99)).toBe(8);
    expect(offsetAt(map, 9, 1)).toBe(text.length);
    expect(offsetAt(map, 0, 0)).toBe(0);
  });

  it('does not count a byte-order mark, as the checker does not', () => {
    const text = '\uFEFFagent a:\nx';
    const map = lineMap(text);
    expect(text[offsetAt(map, 1, 1)]).toBe('a');
    expect(text[offsetAt(map, 2, 1)]).toBe('x');
  });
});

describe('spanRanges', () => {
  it('turns spans into ordered ranges over the same characters', () => {
    const text = 'agent a:\n  prompt: "hi" # note';
    const ranges = spanRanges(text, [span(2, 11, 4, 'string'), span(1, 1, 5, 'keyword'), span(2, 3, 6, 'property'), span(2, 16, 6, 'comment')]);
    expect(ranges.map((r) => [text.slice(r.from, r.to), r.kind])).toEqual([
      ['agent', 'keyword'],
      ['prompt', 'property'],
      ['"hi"', 'string'],
      ['# note', 'comment'],
    ]);
  });

  it('cuts overlaps, drops spans past the text and clips one past its line', () => {
    const text = 'abcdef\nxy';
    const ranges = spanRanges(text, [span(1, 1, 4, 'name'), span(1, 3, 3, 'number'), span(5, 1, 2, 'name'), span(2, 2, 10, 'punct')]);
    expect(ranges.map((r) => [text.slice(r.from, r.to), r.kind])).toEqual([
      ['abcd', 'name'],
      ['e', 'number'],
      ['y', 'punct'],
    ]);
  });
});

describe('placeDiagnostics', () => {
  it('covers the word at the column, in line then column order', () => {
    const text = 'agent a:\n  runtime: "fake"\nsession: nobody\n';
    const placed = placeDiagnostics(text, [d(3, 10, 'unknown agent "nobody"'), d(2, 3, 'first')]);
    expect(placed.map((p) => [p.line, p.column, text.slice(p.from, p.to), p.message])).toEqual([
      [2, 3, 'runtime', 'first'],
      [3, 10, 'nobody', 'unknown agent "nobody"'],
    ]);
  });

  it('covers one character where no word starts, and none at a line end', () => {
    const text = 'a: "x\nb';
    const placed = placeDiagnostics(text, [d(1, 4), d(1, 6), d(7, 1)]);
    expect(placed.map((p) => [p.from, p.to])).toEqual([
      [3, 4],
      [5, 5],
      [6, 7],
    ]);
  });
});

describe('caretPadding', () => {
  it('pads to the column, keeping tabs', () => {
    expect(caretPadding('\tsession "x"', 3)).toBe('\t ');
    expect(caretPadding('ab', 5)).toBe('    ');
  });
});
