import type { Token } from './lexer.js';
import { ParseError, type TokenCursor } from './token-cursor.js';

/**
 * The parser's recovery boundary: each line is parsed on its own; a syntax error is reported,
 * the line and the block under it are skipped, and parsing goes on with the next line, so a
 * file's every problem shows up in one `check`.
 */

/**
 * The lines of one block (or of the file), each parsed by `parseOne` inside a recovery
 * boundary. `onSkipped` is told the first two tokens of a line that was skipped and answers
 * whether it was part of a `try`; `quiet` then tells `parseOne` that the previous line was a
 * broken `try`, so a `catch` or `finally` after it is not reported a second time as having no `try`.
 */
export function parseLines<T>(
  c: TokenCursor,
  parseOne: (quiet: boolean) => T | null,
  onSkipped: (first: Token | undefined, second: Token | undefined) => boolean,
): T[] {
  const items: T[] = [];
  let afterBrokenTry = false;
  while (!c.at('eof')) {
    if (c.at('dedent')) break;
    if (c.at('indent')) {
      c.report('unexpected indentation: the line above opens no block', c.peek().pos);
      c.next();
      items.push(...parseLines(c, parseOne, onSkipped));
      if (c.at('dedent')) c.next();
      continue;
    }
    const start = c.mark;
    try {
      const item = parseOne(afterBrokenTry);
      afterBrokenTry = false;
      if (item !== null) items.push(item);
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
      c.reportError(error);
      afterBrokenTry = onSkipped(c.tokenAt(start), c.tokenAt(start + 1));
      c.skipLine();
    }
  }
  return items;
}

/**
 * What a skipped line would have declared (a channel by `let`/`const`/assignment, an agent),
 * so the validator does not also call every later use of it undefined; and whether the line
 * was part of a try.
 */
export function recoveredNames(first: Token | undefined, second: Token | undefined): { channel: string | null; agent: string | null; partOfTry: boolean } {
  const none = { channel: null, agent: null, partOfTry: false };
  if (first?.kind !== 'word') return none;
  const partOfTry = first.text === 'try' || first.text === 'catch' || first.text === 'finally';
  if ((first.text === 'let' || first.text === 'const') && second?.kind === 'word') return { ...none, channel: second.text, partOfTry };
  if (first.text === 'agent' && second?.kind === 'word') return { ...none, agent: second.text, partOfTry };
  if (second?.kind === 'punct' && second.text === '=') return { ...none, channel: first.text, partOfTry };
  return { ...none, partOfTry };
}
