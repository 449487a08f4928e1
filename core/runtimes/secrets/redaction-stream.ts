/** What a stream needs of a redactor: its scanner, how far a match can reach, and what replaces one. */
export interface MatchRedactor {
  readonly longestMatch: number;
  scanner(): RegExp | null;
  replacement(match: string): string;
}

/**
 * Redacts a text that arrives in pieces (a child's stdout), handing on what is redacted as soon
 * as no secret can still straddle it. What leaves is exactly what `Redactor.text` makes of the
 * whole text, whatever the pieces: so output can be cut to its tail afterwards without a
 * secret's second half surviving at the cut.
 *
 * Why it is exact: whether a match starts at a position is decided by the code point before it
 * and the text up to one code point (at most two UTF-16 units) after its longest candidate.
 * Holding back the last `longestMatch + 1` units means that for every position before the hold
 * all of that is known, so the matches found there are those of the whole text; a match
 * starting there and running into the hold is taken whole; the rest is scanned again with the
 * next piece, behind the last two units handed on, which the lookbehind reads. Memory is the
 * hold plus one piece.
 */
export class RedactionStream {
  private readonly scanner: RegExp | null;
  private readonly hold: number;
  private pending = '';
  /** The last characters handed on (raw, as the text had them): what a match at the start of `pending` looks back at. */
  private context = '';

  constructor(
    private readonly redactor: MatchRedactor,
    private readonly sink: (text: string) => void,
  ) {
    this.scanner = redactor.scanner();
    this.hold = redactor.longestMatch + 1;
  }

  write(text: string): void {
    if (text === '') return;
    if (this.scanner === null) {
      this.sink(text);
      return;
    }
    this.pending += text;
    this.drain(false);
  }

  /** Hands on the rest: the text ends here, so a value at its very end is whole. */
  end(): void {
    if (this.scanner !== null) this.drain(true);
  }

  private drain(final: boolean): void {
    const scanner = this.scanner as RegExp;
    const text = this.context + this.pending;
    const start = this.context.length;
    let limit = final ? text.length : text.length - this.hold;
    if (limit <= start) return;
    let out = '';
    let pos = start;
    scanner.lastIndex = start;
    for (let match = scanner.exec(text); match !== null && match.index < limit; match = scanner.exec(text)) {
      out += text.slice(pos, match.index) + this.redactor.replacement(match[0]);
      pos = match.index + match[0].length;
    }
    // Never hand on half a surrogate pair: the byte encoding would turn it into U+FFFD.
    if (limit > pos && limit < text.length && isHighSurrogate(text.charCodeAt(limit - 1))) limit -= 1;
    const cut = Math.max(pos, limit);
    out += text.slice(pos, cut);
    this.context = text.slice(Math.max(0, cut - 2), cut);
    this.pending = text.slice(cut);
    if (out !== '') this.sink(out);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
