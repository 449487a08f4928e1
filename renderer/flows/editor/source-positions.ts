import type { Diagnostic, HighlightKind, HighlightSpan } from '../../../core/service/api.js';

/**
 * The checker speaks in 1-based lines and columns of the text it was given (a leading byte-order
 * mark not counted, lines split at \n, \r\n or \r); the editor in offsets of its document. These
 * turn one into the other for that very text, so a span or a diagnostic lands on the characters
 * the checker meant. Nothing here imports the editor: it is tested as plain data.
 */

/** Where each line starts in `text`, and how long it is (its break not counted). */
export interface LineMap {
  starts: number[];
  lengths: number[];
  /** 1 when the text begins with a byte-order mark the checker did not count, else 0. */
  bom: number;
}

export function lineMap(text: string): LineMap {
  const starts: number[] = [];
  const lengths: number[] = [];
  const breaks = /\r\n|\r|\n/g;
  let start = 0;
  for (let match = breaks.exec(text); match !== null; match = breaks.exec(text)) {
    starts.push(start);
    lengths.push(match.index - start);
    start = match.index + match[0].length;
  }
  starts.push(start);
  lengths.push(text.length - start);
  return { starts, lengths, bom: text.startsWith('\uFEFF') ? 1 : 0 };
}

/**
 * The offset of a 1-based line and column, clamped into the text: a line past the end is the
 * last line, a column past its line's end is that end (a diagnostic "at end of file" lands there).
 */
export function offsetAt(map: LineMap, line: number, column: number): number {
  const index = Math.min(Math.max(1, Math.floor(line)), map.starts.length) - 1;
  const skip = index === 0 ? map.bom : 0;
  const length = (map.lengths[index] ?? 0) - skip;
  const within = Math.min(Math.max(0, Math.floor(column) - 1), Math.max(0, length));
  return (map.starts[index] ?? 0) + skip + within;
}

export interface KindRange {
  from: number;
  to: number;
  kind: HighlightKind;
}

/**
 * The highlighter's spans as ranges of the text, in order and never overlapping (a span that
 * overlaps an earlier one is cut to what is left; one with nothing left, or past its line, is dropped).
 */
export function spanRanges(text: string, spans: readonly HighlightSpan[], map: LineMap = lineMap(text)): KindRange[] {
  const out: KindRange[] = [];
  let at = 0;
  const sorted = [...spans].sort((a, b) => a.line - b.line || a.column - b.column);
  for (const span of sorted) {
    if (span.line < 1 || span.line > map.starts.length) continue;
    const from = Math.max(at, offsetAt(map, span.line, span.column));
    const to = offsetAt(map, span.line, span.column + span.length);
    if (to <= from) continue;
    out.push({ from, to, kind: span.kind });
    at = to;
  }
  return out;
}

/** A diagnostic placed in the text: from its column to the end of the word there (at least one character when the line has one). */
export interface PlacedDiagnostic {
  from: number;
  to: number;
  line: number;
  column: number;
  severity: Diagnostic['severity'];
  message: string;
}

const WORD = /[\w$.-]/;

export function placeDiagnostics(text: string, diagnostics: readonly Diagnostic[], map: LineMap = lineMap(text)): PlacedDiagnostic[] {
  return [...diagnostics]
    .sort((a, b) => a.line - b.line || a.column - b.column)
    .map((d) => {
      const from = offsetAt(map, d.line, d.column);
      const index = Math.min(Math.max(1, d.line), map.starts.length) - 1;
      const lineEnd = (map.starts[index] ?? 0) + (map.lengths[index] ?? 0);
      let to = from;
      while (to < lineEnd && WORD.test(text[to] ?? '')) to++;
      if (to === from && from < lineEnd) to = from + 1;
      return { from, to, line: d.line, column: d.column, severity: d.severity, message: d.message };
    });
}

/** Spaces up to a 1-based column, tabs kept so a caret under the line lines up with tabbed text. */
export function caretPadding(text: string, column: number): string {
  const upto = text.slice(0, Math.max(0, column - 1));
  return upto.replace(/[^\t]/g, ' ') + ' '.repeat(Math.max(0, column - 1 - upto.length));
}
