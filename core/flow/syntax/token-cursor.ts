import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Diagnostic, Position } from './ast.js';
import { describeToken, type Punct, type Token, type TokenKind } from './lexer.js';

/**
 * The parser's view of the token list: look-ahead, expectations that throw, and the recovery
 * step that lets parsing go on after an error. Kept apart from the grammar so the grammar reads
 * as grammar.
 */

/**
 * Thrown to abandon the current line; `silent` when the lexer already reported its cause. The
 * parser catches it and reports it as a diagnostic; it never leaves the parser.
 */
export class ParseError extends HivewatchError {
  constructor(
    message: string,
    readonly pos: Position,
    readonly silent: boolean,
  ) {
    super('USER_INVALID_FLOW', { message, context: { line: pos.line, column: pos.column } });
    this.name = 'ParseError';
  }
}

/**
 * How deep blocks and lists may nest. Parsing, checking and running all walk the tree
 * recursively; a bound far above any real flow keeps a hostile file from exhausting the stack.
 */
const MAX_NESTING = 64;

export class TokenCursor {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly file: string,
    readonly diagnostics: Diagnostic[],
  ) {}

  peek(offset = 0): Token {
    const last = this.tokens[this.tokens.length - 1];
    const token = this.tokens[Math.min(this.index + offset, this.tokens.length - 1)] ?? last;
    if (!token) throw new Error('token list must end with eof');
    return token;
  }

  /** Position in the token list, to look back at what a failed statement started with. */
  get mark(): number {
    return this.index;
  }

  tokenAt(mark: number): Token | undefined {
    return this.tokens[mark];
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.index += 1;
    return token;
  }

  at(kind: TokenKind, offset = 0): boolean {
    return this.peek(offset).kind === kind;
  }

  atPunct(text: Punct, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'punct' && token.text === text;
  }

  atWord(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.text === text;
  }

  acceptPunct(text: Punct): boolean {
    if (!this.atPunct(text)) return false;
    this.next();
    return true;
  }

  /** Ends parsing of the current line with `message` (the caller's recovery takes over). */
  fail(message: string, token: Token = this.peek()): never {
    throw new ParseError(message, token.pos, token.kind === 'invalid');
  }

  /** `what` completes "expected ...", e.g. `":" after "try"`. */
  expectPunct(text: Punct, what: string): Token {
    if (!this.atPunct(text)) this.fail(`expected ${what}, got ${describeToken(this.peek())}`);
    return this.next();
  }

  expectEndOfLine(after: string): void {
    if (this.at('newline')) {
      this.next();
      return;
    }
    if (this.at('eof') || this.at('dedent')) return;
    this.fail(`expected the end of the line after ${after}, got ${describeToken(this.peek())}`);
  }

  /** `header:` then the end of the line, for block openers (`try:`, `agent name:`). */
  expectBlockHeader(header: string): void {
    this.expectPunct(':', `":" after "${header}"`);
    this.expectEndOfLine(`"${header}:"`);
  }

  /**
   * After a `header:` line: the block indented under it, its items parsed by `items` (which stops
   * at the block's DEDENT). No indented line at all is an empty block, reported at the header.
   */
  indentedBlock<T>(header: Token, label: string, items: () => T[]): T[] {
    if (!this.at('indent')) {
      this.report(`empty block: "${label}" needs at least one indented line below it`, header.pos);
      return [];
    }
    return this.nested(header, () => {
      this.next();
      const result = items();
      if (this.at('dedent')) this.next();
      return result;
    });
  }

  /** Runs `parse` one level deeper; past MAX_NESTING the construct opened at `opener` is an error. */
  nested<T>(opener: Token, parse: () => T): T {
    if (this.depth >= MAX_NESTING) {
      throw new ParseError(`nesting deeper than ${MAX_NESTING} levels (blocks and lists): flatten this part of the flow`, opener.pos, false);
    }
    this.depth += 1;
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  report(message: string, pos: Position): void {
    this.diagnostics.push({ file: this.file, line: pos.line, column: pos.column, message, severity: 'error' });
  }

  reportError(error: ParseError): void {
    if (!error.silent) this.report(error.message, error.pos);
  }

  /**
   * Recovery: skip the rest of the line and any block indented under it, landing on the next line
   * at the same or a lower indentation. A broken header therefore hides only its own body.
   */
  skipLine(): void {
    while (!this.at('newline') && !this.at('eof') && !this.at('dedent')) {
      if (this.at('indent')) this.skipBlock();
      else this.next();
    }
    if (this.at('newline')) this.next();
    if (this.at('indent')) this.skipBlock();
  }

  /** At an INDENT: skips to just after its matching DEDENT. */
  skipBlock(): void {
    let depth = 0;
    do {
      const token = this.next();
      if (token.kind === 'indent') depth += 1;
      else if (token.kind === 'dedent') depth -= 1;
      else if (token.kind === 'eof') return;
    } while (depth > 0);
  }
}
