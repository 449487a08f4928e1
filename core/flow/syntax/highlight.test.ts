import { describe, expect, it } from 'vitest';
import { highlightSpans, type HighlightSpan } from './highlight.js';

/** The spans as `kind:text` per line, easy to read in an expectation. */
function shown(source: string): string[][] {
  const lines = source.split('\n');
  const out: string[][] = lines.map(() => []);
  for (const s of highlightSpans(source) as HighlightSpan[])
    out[s.line - 1]?.push(`${s.kind}:${(lines[s.line - 1] ?? '').slice(s.column - 1, s.column - 1 + s.length)}`);
  return out;
}

describe('flow syntax highlighting from the lexer', () => {
  it('tells keywords, properties, names, strings, numbers, punctuation and comments apart', () => {
    const source = [
      '# A comment line',
      'agent writer:',
      '  runtime: "fake" # trailing',
      'let draft = session: writer',
      '  prompt: "Say \\"hi\\" # not a comment"',
      '  retry: 3',
      '  delay: 30s',
    ].join('\n');
    expect(shown(source)).toEqual([
      ['comment:# A comment line'],
      ['keyword:agent', 'name:writer', 'punct::'],
      ['property:runtime', 'punct::', 'string:"fake"', 'comment:# trailing'],
      ['keyword:let', 'name:draft', 'punct:=', 'keyword:session', 'punct::', 'name:writer'],
      ['property:prompt', 'punct::', 'string:"Say \\"hi\\" # not a comment"'],
      ['property:retry', 'punct::', 'number:3'],
      ['property:delay', 'punct::', 'name:30s'],
    ]);
  });

  it('an unterminated string runs to the end of its line; an unknown character is marked invalid', () => {
    expect(shown('session "open\nsession "x" @')).toEqual([
      ['keyword:session', 'string:"open'],
      ['keyword:session', 'string:"x"', 'invalid:@'],
    ]);
  });
});
