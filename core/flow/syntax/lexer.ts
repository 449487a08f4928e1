import type { Diagnostic, Position, Template } from './ast.js';
import { parseTemplate } from './template.js';

/**
 * Turns flow source into tokens. Indentation becomes INDENT / DEDENT tokens (as in Python), so
 * the parser never counts spaces. Blank and comment-only lines produce nothing. A statement is
 * one line: brackets do not join lines, which keeps every error local to the line it is on.
 *
 * The lexer never stops at an error: it reports it and produces the best token it can (an
 * unterminated string still becomes a string; an unknown character becomes an `invalid` token
 * the parser skips without a second report), so one run finds every problem of a file.
 */

export type Punct = '(' | ')' | '[' | ']' | ',' | ':' | '=';

export type Token =
  /** Identifiers (may contain `-`: `max-delay`), keywords, and number-led words such as `30s`. */
  | { kind: 'word'; text: string; pos: Position }
  | { kind: 'number'; text: string; value: number; pos: Position }
  /** `text` is the decoded value; `template` holds its parts with source positions. */
  | { kind: 'string'; text: string; template: Template; pos: Position }
  | { kind: 'punct'; text: Punct; pos: Position }
  /** A character already reported by the lexer. */
  | { kind: 'invalid'; text: string; pos: Position }
  | { kind: 'newline' | 'indent' | 'dedent' | 'eof'; text: ''; pos: Position };

export type TokenKind = Token['kind'];

export interface LexResult {
  tokens: Token[];
  diagnostics: Diagnostic[];
}

const PUNCTUATION: ReadonlySet<string> = new Set(['(', ')', '[', ']', ',', ':', '=']);
const WORD_START = /[A-Za-z_]/;
const WORD_CHAR = /[A-Za-z0-9_-]/;
const DIGIT = /[0-9]/;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', t: '\t' };

/**
 * One open indentation level. `aliases` are widths of lines that dedented to no known level and
 * were kept in this block (reported once): their siblings at the same width then raise no error.
 */
interface Level {
  width: number;
  aliases: number[];
}

const matches = (level: Level, width: number): boolean => level.width === width || level.aliases.includes(width);
const widest = (level: Level): number => Math.max(level.width, ...level.aliases);

export function lex(source: string, file: string): LexResult {
  return new Lexer(source, file).run();
}

class Lexer {
  private readonly tokens: Token[] = [];
  private readonly diagnostics: Diagnostic[] = [];
  private readonly levels: Level[] = [{ width: 0, aliases: [] }];
  /** The first indented line decides whether this file indents with spaces or tabs. */
  private indentChar: ' ' | '\t' | null = null;

  constructor(
    private readonly source: string,
    private readonly file: string,
  ) {}

  run(): LexResult {
    // A lone CR (classic Mac OS, some editors' "old Mac" setting) ends a line as LF and CRLF do.
    const lines = this.source.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
    lines.forEach((raw, index) => this.lexLine(raw, index + 1));
    const end = { line: lines.length + 1, column: 1 };
    for (let open = this.levels.length - 1; open > 0; open--) this.push({ kind: 'dedent', text: '', pos: end });
    this.levels.length = 1;
    this.push({ kind: 'eof', text: '', pos: end });
    return { tokens: this.tokens, diagnostics: this.diagnostics };
  }

  private push(token: Token): void {
    this.tokens.push(token);
  }

  private report(message: string, line: number, column: number): void {
    this.diagnostics.push({ file: this.file, line, column, message, severity: 'error' });
  }

  private lexLine(text: string, line: number): void {
    const indent = /^[ \t]*/.exec(text)?.[0] ?? '';
    const rest = text.slice(indent.length);
    if (rest.trim() === '' || rest.startsWith('#')) return;
    const mixed = this.checkIndentChars(indent, line);
    this.indentTo(indent.length, { line, column: indent.length + 1 }, mixed);
    this.lexTokens(text, indent.length, line);
    this.push({ kind: 'newline', text: '', pos: { line, column: text.length + 1 } });
  }

  /** Reports a line whose indentation uses the other character than the file's; true when it did. */
  private checkIndentChars(indent: string, line: number): boolean {
    if (indent === '') return false;
    this.indentChar ??= indent[0] === '\t' ? '\t' : ' ';
    const offending = [...indent].findIndex((ch) => ch !== this.indentChar);
    if (offending === -1) return false;
    this.report('indentation mixes tabs and spaces: indent with one of them throughout the file', line, offending + 1);
    return true;
  }

  private indentTo(width: number, pos: Position, alreadyReported: boolean): void {
    const top = (): Level => this.levels[this.levels.length - 1] ?? { width: 0, aliases: [] };
    const below = (): Level | undefined => this.levels[this.levels.length - 2];
    if (matches(top(), width)) return;
    if (width > widest(top())) {
      this.levels.push({ width, aliases: [] });
      this.push({ kind: 'indent', text: '', pos });
      return;
    }
    const openColumns = this.levels.map((l) => l.width + 1);
    for (let outer = below(); outer !== undefined && width <= widest(outer); outer = below()) {
      this.levels.pop();
      this.push({ kind: 'dedent', text: '', pos });
    }
    if (matches(top(), width)) return;
    // Dedented to between two levels. The line stays in the inner block, the likelier intent
    // (a line that drifted left), so the structure around it (a following `catch:`) still parses.
    if (!alreadyReported) {
      this.report(
        `inconsistent indentation: the dedent to column ${pos.column} matches no enclosing block (blocks start at column ${openColumns.join(', ')})`,
        pos.line,
        pos.column,
      );
    }
    top().aliases.push(width);
  }

  private lexTokens(text: string, start: number, line: number): void {
    let i = start;
    while (i < text.length) {
      const ch = text[i] ?? '';
      const pos = { line, column: i + 1 };
      if (ch === ' ' || ch === '\t' || ch === '\r') {
        i += 1;
      } else if (ch === '#') {
        return;
      } else if (ch === '"') {
        i = this.lexString(text, i, line);
      } else if (DIGIT.test(ch) || (ch === '-' && DIGIT.test(text[i + 1] ?? ''))) {
        i = this.lexNumberOrDuration(text, i, pos);
      } else if (WORD_START.test(ch)) {
        let end = i + 1;
        while (end < text.length && WORD_CHAR.test(text[end] ?? '')) end += 1;
        this.push({ kind: 'word', text: text.slice(i, end), pos });
        i = end;
      } else if (PUNCTUATION.has(ch)) {
        this.push({ kind: 'punct', text: ch as Punct, pos });
        i += 1;
      } else {
        this.report(`unexpected character ${JSON.stringify(ch)}`, line, i + 1);
        this.push({ kind: 'invalid', text: ch, pos });
        i += 1;
      }
    }
  }

  /** `3`, `-1`, `2.5` are numbers; `30s`, `1.5s`, `500ms` (digits then letters) are words: durations. */
  private lexNumberOrDuration(text: string, start: number, pos: Position): number {
    let end = start + (text[start] === '-' ? 1 : 0);
    while (end < text.length && DIGIT.test(text[end] ?? '')) end += 1;
    if (text[end] === '.' && DIGIT.test(text[end + 1] ?? '')) {
      end += 1;
      while (end < text.length && DIGIT.test(text[end] ?? '')) end += 1;
    }
    if (WORD_START.test(text[end] ?? '')) {
      while (end < text.length && WORD_CHAR.test(text[end] ?? '')) end += 1;
      this.push({ kind: 'word', text: text.slice(start, end), pos });
      return end;
    }
    const written = text.slice(start, end);
    this.push({ kind: 'number', text: written, value: Number(written), pos });
    return end;
  }

  /** Decodes one string, keeping the source column of every decoded character for the template. */
  private lexString(text: string, start: number, line: number): number {
    let decoded = '';
    const columns: number[] = [];
    let i = start + 1;
    let closed = false;
    while (i < text.length) {
      const ch = text[i] ?? '';
      if (ch === '"') {
        closed = true;
        i += 1;
        break;
      }
      if (ch === '\\') {
        const escaped = text[i + 1];
        const meaning = escaped === undefined ? undefined : ESCAPES[escaped];
        if (meaning === undefined) {
          const shown = escaped === undefined ? '\\' : `\\${escaped}`;
          this.report(`unknown escape ${shown} in string: use \\" \\\\ \\n or \\t`, line, i + 1);
        }
        decoded += meaning ?? escaped ?? '';
        columns.push(i + 1);
        i += 2;
        continue;
      }
      decoded += ch;
      columns.push(i + 1);
      i += 1;
    }
    const pos = { line, column: start + 1 };
    if (!closed) this.report('unterminated string: a string must end with " on the same line', line, start + 1);
    const endColumn = i + 1;
    const { template, problems } = parseTemplate(decoded, { pos, columnAt: (index) => columns[index] ?? endColumn });
    for (const problem of problems) this.report(problem.message, problem.pos.line, problem.pos.column);
    this.push({ kind: 'string', text: decoded, template, pos });
    return i;
  }
}

/** How a token is named in "expected X, got Y" messages. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'word':
    case 'number':
    case 'punct':
    case 'invalid':
      return `"${token.text}"`;
    case 'string':
      return 'a string';
    case 'newline':
      return 'the end of the line';
    case 'indent':
      return 'an indented block';
    case 'dedent':
      return 'the end of the block';
    case 'eof':
      return 'the end of the file';
  }
}
