import type { HighlightKind, HighlightSpan } from '../../core/service/api.js';

/** A piece of one source line: plain text (kind null) or a coloured span. */
export interface Segment {
  text: string;
  kind: HighlightKind | null;
}

/** Spans grouped by line number, for a whole source at once. */
export function spansByLine(spans: readonly HighlightSpan[]): Map<number, HighlightSpan[]> {
  const byLine = new Map<number, HighlightSpan[]>();
  for (const span of spans) {
    const list = byLine.get(span.line);
    if (list) list.push(span);
    else byLine.set(span.line, [span]);
  }
  return byLine;
}

/**
 * Cuts one line into segments. Spans are the server's for this very text; one that overlaps an
 * earlier one or runs past the line (never expected) is clipped, so every character shows once.
 */
export function segmentsOf(text: string, spans: readonly HighlightSpan[] = []): Segment[] {
  const out: Segment[] = [];
  let at = 0;
  for (const span of [...spans].sort((a, b) => a.column - b.column)) {
    const start = Math.max(at, span.column - 1);
    const end = Math.min(text.length, span.column - 1 + span.length);
    if (end <= start) continue;
    if (start > at) out.push({ text: text.slice(at, start), kind: null });
    out.push({ text: text.slice(start, end), kind: span.kind });
    at = end;
  }
  if (at < text.length) out.push({ text: text.slice(at), kind: null });
  return out;
}
