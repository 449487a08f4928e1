import { lex, type Token } from './lexer.js';
import { KEYWORDS } from './keywords.js';

/**
 * Syntax highlighting of flow source from the checker's own lexer, so the colours never
 * disagree with what `check` reads: a keyword is what the parser treats as one, a string ends
 * where the lexer ends it, a comment starts where the lexer stops reading the line. The window
 * gets the spans with checkFlow / listFlows (the renderer runs no core code).
 */

export type HighlightKind = 'keyword' | 'property' | 'name' | 'string' | 'number' | 'comment' | 'punct' | 'invalid';

/** One coloured run of characters: 1-based line and column, length in UTF-16 units of that line. */
export interface HighlightSpan {
  line: number;
  column: number;
  length: number;
  kind: HighlightKind;
}

const STARTS_LINE: ReadonlySet<Token['kind']> = new Set(['newline', 'indent', 'dedent']);

/** Where the string starting at `start` ends in `text` (index after its closing quote, or the line's end). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\') i += 2;
    else if (ch === '"') return i + 1;
    else i += 1;
  }
  return Math.min(i, text.length);
}

/** The column (0-based) of a `#` that starts a comment on this line, outside strings; -1 when none. */
function commentStart(text: string): number {
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') i = stringEnd(text, i);
    else if (ch === '#') return i;
    else i += 1;
  }
  return -1;
}

export function highlightSpans(source: string): HighlightSpan[] {
  const text = source.replace(/^\uFEFF/, '');
  const lines = text.split(/\r\n|\r|\n/);
  const { tokens } = lex(text, 'highlight');
  const spans: HighlightSpan[] = [];
  tokens.forEach((token, index) => {
    const { line, column } = token.pos;
    const lineText = lines[line - 1] ?? '';
    switch (token.kind) {
      case 'word': {
        const previous = tokens[index - 1];
        const next = tokens[index + 1];
        const first = previous === undefined || STARTS_LINE.has(previous.kind) || previous.pos.line !== line;
        const kind: HighlightKind = KEYWORDS.has(token.text)
          ? 'keyword'
          : first && next?.kind === 'punct' && next.text === ':' && next.pos.line === line
            ? 'property'
            : 'name';
        spans.push({ line, column, length: token.text.length, kind });
        break;
      }
      case 'number':
        spans.push({ line, column, length: token.text.length, kind: 'number' });
        break;
      case 'string':
        spans.push({ line, column, length: stringEnd(lineText, column - 1) - (column - 1), kind: 'string' });
        break;
      case 'punct':
      case 'invalid':
        spans.push({ line, column, length: token.text.length, kind: token.kind });
        break;
      default:
        break;
    }
  });
  lines.forEach((lineText, i) => {
    const at = commentStart(lineText);
    if (at >= 0) spans.push({ line: i + 1, column: at + 1, length: lineText.length - at, kind: 'comment' });
  });
  return spans.sort((a, b) => a.line - b.line || a.column - b.column);
}
