import { describeToken, type Token } from './lexer.js';
import type { TokenCursor } from './token-cursor.js';

/**
 * The words the language reserves, and what may be a name a flow declares (an agent, a variable,
 * a branch, an error, a repeat index): a word that starts like an identifier and is not one of
 * them. The highlighter colours the same set the parser refuses as names.
 */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'agent',
  'session',
  'let',
  'const',
  'try',
  'catch',
  'finally',
  'throw',
  'parallel',
  'repeat',
  'do',
  'as',
]);

/** A name being declared, taken from the cursor; `what` completes "expected ...". */
export function expectName(c: TokenCursor, what: string): Extract<Token, { kind: 'word' }> {
  const token = c.peek();
  if (token.kind !== 'word') return c.fail(`expected ${what}, got ${describeToken(token)}`);
  if (KEYWORDS.has(token.text)) return c.fail(`"${token.text}" is a keyword and cannot be used as a name`);
  if (!/^[A-Za-z_]/.test(token.text)) return c.fail(`"${token.text}" is not a name: a name starts with a letter or _`);
  c.next();
  return token;
}
