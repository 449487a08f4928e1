import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './ast.js';
import { lex, type Token } from './lexer.js';

/** Tokens as compact strings: `word:let`, `string:hi`, `INDENT`, ... */
function kinds(source: string): string[] {
  return lex(source, 'f.prose').tokens.map((t: Token) => {
    switch (t.kind) {
      case 'newline':
      case 'indent':
      case 'dedent':
      case 'eof':
        return t.kind.toUpperCase();
      default:
        return `${t.kind}:${t.text}`;
    }
  });
}

function problems(source: string): string[] {
  return lex(source, 'f.prose').diagnostics.map(formatDiagnostic);
}

describe('lexer', () => {
  it('turns indentation into INDENT and DEDENT, and skips blank and comment lines', () => {
    const source = ['try:', '  session "a"', '', '  # a comment', '    ', 'catch:', '  throw', ''].join('\n');
    expect(kinds(source)).toEqual([
      'word:try',
      'punct::',
      'NEWLINE',
      'INDENT',
      'word:session',
      'string:a',
      'NEWLINE',
      'DEDENT',
      'word:catch',
      'punct::',
      'NEWLINE',
      'INDENT',
      'word:throw',
      'NEWLINE',
      'DEDENT',
      'EOF',
    ]);
    expect(problems(source)).toEqual([]);
  });

  it('closes every open block at the end of the file', () => {
    expect(kinds('do:\n  do:\n    session "x"')).toEqual([
      'word:do',
      'punct::',
      'NEWLINE',
      'INDENT',
      'word:do',
      'punct::',
      'NEWLINE',
      'INDENT',
      'word:session',
      'string:x',
      'NEWLINE',
      'DEDENT',
      'DEDENT',
      'EOF',
    ]);
  });

  it('reads words with dashes, numbers, durations, punctuation and trailing comments', () => {
    expect(kinds('session "x" (retry: -1, max-delay: 1.5s, on-fail: fail-fast, backoff: [1s, 500ms], n = 2.5) # note')).toEqual([
      'word:session',
      'string:x',
      'punct:(',
      'word:retry',
      'punct::',
      'number:-1',
      'punct:,',
      'word:max-delay',
      'punct::',
      'word:1.5s',
      'punct:,',
      'word:on-fail',
      'punct::',
      'word:fail-fast',
      'punct:,',
      'word:backoff',
      'punct::',
      'punct:[',
      'word:1s',
      'punct:,',
      'word:500ms',
      'punct:]',
      'punct:,',
      'word:n',
      'punct:=',
      'number:2.5',
      'punct:)',
      'NEWLINE',
      'EOF',
    ]);
  });

  it('gives numbers their value and every token its 1-based line and column', () => {
    const { tokens } = lex('let x = "a"\n  repeat 12', 'f.prose');
    expect(tokens.map((t) => [t.kind, t.pos.line, t.pos.column])).toEqual([
      ['word', 1, 1],
      ['word', 1, 5],
      ['punct', 1, 7],
      ['string', 1, 9],
      ['newline', 1, 12],
      ['indent', 2, 3],
      ['word', 2, 3],
      ['number', 2, 10],
      ['newline', 2, 12],
      ['dedent', 3, 1],
      ['eof', 3, 1],
    ]);
    const twelve = tokens.find((t) => t.kind === 'number');
    expect(twelve?.kind === 'number' && twelve.value).toBe(12);
  });

  it('decodes \\" \\\\ \\n escapes and keeps a # inside a string', () => {
    const { tokens, diagnostics } = lex('throw "say \\"hi\\" \\\\ # not a comment\\nnext"', 'f.prose');
    expect(diagnostics).toEqual([]);
    expect(tokens[1]).toMatchObject({ kind: 'string', text: 'say "hi" \\ # not a comment\nnext' });
  });

  it('parses interpolation holes with their source columns, even after escapes', () => {
    const { tokens } = lex('session "\\"{plan}\\" by {err.message}"', 'f.prose');
    const string = tokens[1];
    expect(string?.kind).toBe('string');
    if (string?.kind !== 'string') return;
    expect(string.template.pos).toEqual({ line: 1, column: 9 });
    expect(string.template.parts).toEqual([
      { kind: 'text', text: '"' },
      { kind: 'ref', path: ['plan'], pos: { line: 1, column: 12 } },
      { kind: 'text', text: '" by ' },
      { kind: 'ref', path: ['err', 'message'], pos: { line: 1, column: 24 } },
    ]);
  });

  it('handles CRLF line endings and a byte order mark', () => {
    expect(kinds('\uFEFFdo:\r\n  throw\r\n')).toEqual(['word:do', 'punct::', 'NEWLINE', 'INDENT', 'word:throw', 'NEWLINE', 'DEDENT', 'EOF']);
  });

  it('reports an unterminated string at its opening quote and still produces the string', () => {
    const { tokens, diagnostics } = lex('session "never closed\nsession "ok"', 'f.prose');
    expect(diagnostics.map(formatDiagnostic)).toEqual(['f.prose:1:9: unterminated string: a string must end with " on the same line']);
    expect(tokens[1]).toMatchObject({ kind: 'string', text: 'never closed' });
    expect(tokens[4]).toMatchObject({ kind: 'string', text: 'ok' });
  });

  it('reports an unknown escape and an unexpected character', () => {
    expect(problems('throw "a\\qb" ;')).toEqual([
      'f.prose:1:9: unknown escape \\q in string: use \\" \\\\ \\n or \\t',
      'f.prose:1:14: unexpected character ";"',
    ]);
  });

  it('reports tabs mixed with spaces at the line and the first offending character', () => {
    expect(problems('do:\n  session "a"\n\tsession "b"')).toEqual([
      'f.prose:3:1: indentation mixes tabs and spaces: indent with one of them throughout the file',
    ]);
    expect(problems('do:\n \tsession "a"')).toEqual(['f.prose:2:2: indentation mixes tabs and spaces: indent with one of them throughout the file']);
  });

  it('accepts a file indented with tabs only', () => {
    expect(problems('do:\n\tdo:\n\t\tsession "a"\n\tsession "b"')).toEqual([]);
  });

  it('reports a dedent that matches no open block, once for a run of such lines', () => {
    const source = 'try:\n    session "a"\n  session "b"\n  session "c"\ncatch:\n  throw';
    expect(problems(source)).toEqual([
      'f.prose:3:3: inconsistent indentation: the dedent to column 3 matches no enclosing block (blocks start at column 1, 5)',
    ]);
    // The badly dedented lines stay in the try body, so the catch after them still has its try.
    expect(kinds(source).slice(0, 16)).toEqual([
      'word:try',
      'punct::',
      'NEWLINE',
      'INDENT',
      'word:session',
      'string:a',
      'NEWLINE',
      'word:session',
      'string:b',
      'NEWLINE',
      'word:session',
      'string:c',
      'NEWLINE',
      'DEDENT',
      'word:catch',
      'punct::',
    ]);
  });
});
