import type { Template } from './ast.js';
import { DOUBLE_QUOTE_ESCAPABLE, literalOf, type RefPlace, type ScanWord, type ShellScan } from './shell-words.js';
import type { TemplateRef } from './template.js';

/**
 * Reads a `shell: true` command template the way `/bin/sh` will read the rendered script, to say
 * for every placeholder which quoting context it lands in. Only three contexts can be made safe
 * by quoting the value (`command-line.ts` does): bare, inside '…', inside "…" — each at the top
 * level of the script. Anything the shell parses a second time (backticks, $(…), <(…), ${…},
 * $((…)), $'…', $"…", here-documents, comments) is recorded as refused, with the construct.
 *
 * The script's top level is also cut into simple commands (words, with assignments and
 * redirections marked), so `command-safety.ts` can judge what a command does with its
 * arguments (eval, sh -c, ssh, …). The renderer uses this same scan to choose each value's
 * escaping, so the check and the escaping cannot disagree about where a value is.
 */

type Item = string | TemplateRef;

const BLANK = new Set([' ', '\t']);
const OPERATOR = new Set([';', '&', '|', '(', ')']);
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);

function flatten(template: Template): Item[] {
  const items: Item[] = [];
  for (const part of template.parts) {
    if (part.kind === 'ref') items.push(part);
    else for (const ch of part.text) items.push(ch);
  }
  return items;
}

class Scanner {
  private i = 0;
  private readonly places = new Map<TemplateRef, RefPlace>();
  private readonly refused = new Map<TemplateRef, string>();
  private readonly commands: ScanWord[][] = [];
  private command: ScanWord[] = [];
  private word: ScanWord | null = null;
  private nextIsRedirect = false;
  private pendingHeredocs: { delimiter: string; stripTabs: boolean }[] = [];
  private broken: string | null = null;

  constructor(private readonly items: Item[]) {}

  scan(): ShellScan {
    while (this.i < this.items.length && this.broken === null) this.top();
    this.endCommand();
    return { places: this.places, refused: this.refused, commands: this.commands, broken: this.broken };
  }

  private peek(offset = 0): Item | undefined {
    return this.items[this.i + offset];
  }

  private take(): Item | undefined {
    return this.items[this.i++];
  }

  private refuse(ref: TemplateRef, construct: string): void {
    if (!this.refused.has(ref)) this.refused.set(ref, construct);
  }

  private fail(message: string): void {
    this.broken ??= message;
    this.i = this.items.length;
  }

  // ---- top-level words and commands -------------------------------------------------------

  private current(): ScanWord {
    this.word ??= { pieces: [], quoted: false, expands: false, redirect: this.nextIsRedirect, quotedName: false };
    this.nextIsRedirect = false;
    return this.word;
  }

  private addText(text: string): void {
    const word = this.current();
    const last = word.pieces[word.pieces.length - 1];
    if (typeof last === 'string') word.pieces[word.pieces.length - 1] = last + text;
    else word.pieces.push(text);
  }

  private markQuoted(): void {
    const word = this.current();
    word.quoted = true;
    if (!literalOf(word).includes('=')) word.quotedName = true;
  }

  private addRef(ref: TemplateRef, place: RefPlace): void {
    this.current().pieces.push(ref);
    this.places.set(ref, place);
  }

  private endWord(): void {
    if (this.word) this.command.push(this.word);
    this.word = null;
  }

  private endCommand(): void {
    this.endWord();
    if (this.command.length > 0) this.commands.push(this.command);
    this.command = [];
    this.nextIsRedirect = false;
  }

  private top(): void {
    const item = this.take() as Item;
    if (typeof item !== 'string') return this.addRef(item, 'bare');
    if (item === '\n') {
      this.endCommand();
      return this.heredocBodies();
    }
    if (BLANK.has(item)) return this.endWord();
    if (item === '#' && this.word === null) return this.comment();
    if (item === '(' && this.word === null && this.command.length === 0 && this.peek() === '(') {
      this.i++;
      this.current().expands = true;
      return this.nested('))', '((…)) arithmetic');
    }
    if (OPERATOR.has(item)) return this.endCommand();
    if (item === '<' || item === '>') return this.redirection(item);
    if (item === '\\') return this.escaped();
    if (item === "'") return this.singleQuoted();
    if (item === '"') return this.doubleQuoted();
    if (item === '`' || item === '$') return this.expansion(item);
    this.addText(item);
  }

  private escaped(): void {
    const next = this.take();
    if (next === undefined) return this.fail('a backslash at the end of a command escapes nothing');
    if (next === '\n') return; // line continuation
    this.markQuoted();
    if (typeof next === 'string') this.addText(next);
    // `\{x}` would escape the quote that opens the value: it would not be quoted at all.
    else this.refuse(next, 'right after a backslash');
  }

  private singleQuoted(): void {
    this.markQuoted();
    for (;;) {
      const item = this.take();
      if (item === undefined) return this.fail('unterminated single quote in command');
      if (item === "'") return;
      if (typeof item === 'string') this.addText(item);
      else this.addRef(item, 'single');
    }
  }

  private doubleQuoted(): void {
    this.markQuoted();
    for (;;) {
      const item = this.take();
      if (item === undefined) return this.fail('unterminated double quote in command');
      if (typeof item !== 'string') this.addRef(item, 'double');
      else if (item === '"') return;
      else if (item === '\\') {
        const next = this.take();
        if (next === undefined) continue;
        if (typeof next !== 'string') this.refuse(next, 'right after a backslash');
        else if (next !== '\n') this.addText(DOUBLE_QUOTE_ESCAPABLE.has(next) ? next : `\\${next}`);
      } else if (item === '`' || item === '$') this.expansion(item, true);
      else this.addText(item);
    }
  }

  /** `$name`, `$(…)`, `${…}`, `` `…` `` and their kin, as part of the current word. */
  private expansion(first: '`' | '$', inDouble = false): void {
    const word = this.current();
    if (first === '`') {
      word.expands = true;
      return this.nested('`', 'backticks (`…`)');
    }
    const next = this.peek();
    if (next !== undefined && typeof next !== 'string') {
      // `${x}` renders as `$'…'` (bash decodes escapes in it) and `"${x}"` lets a value
      // starting with `(` become `$(…)`: a value right after `$` is never data.
      this.addText('$');
      this.refuse(this.take() as TemplateRef, 'right after $');
      return;
    }
    if (next === '(' && this.peek(1) === '(') {
      this.i += 2;
      word.expands = true;
      return this.nested('))', '$((…)) arithmetic');
    }
    // Inside "…", `$'` and `$"` are a plain `$` followed by a quote.
    const quoteOpens = !inDouble && (next === "'" || next === '"');
    const construct = next === '(' ? '$(…)' : next === '{' ? '${…}' : quoteOpens ? (next === "'" ? "$'…'" : '$"…"') : null;
    if (construct !== null) {
      this.i++;
      word.expands = true;
      if (quoteOpens) this.markQuoted();
      return this.nested(next === '(' ? ')' : next === '{' ? '}' : (next as string), construct);
    }
    if (typeof next === 'string' && /[A-Za-z0-9_@*#?$!-]/.test(next)) word.expands = true;
    this.addText('$');
  }

  private redirection(first: '<' | '>'): void {
    // A word of digits right before the operator is the file descriptor, not a word.
    if (this.word && this.word.pieces.length === 1 && !this.word.quoted && /^\d+$/.test(this.word.pieces[0] as string)) this.word = null;
    this.endWord();
    const next = this.peek();
    if (next === '(') {
      this.i++;
      this.current().expands = true;
      return this.nested(')', `${first}(…) process substitution`);
    }
    if (first === '<' && next === '<') {
      this.i++;
      if (this.peek() === '<') {
        this.i++; // a here-string: its word is data, like an argument
        return;
      }
      return this.heredocOperator();
    }
    while (this.peek() === '>' || this.peek() === '&' || this.peek() === '|') this.i++;
    this.nextIsRedirect = true;
  }

  private comment(): void {
    while (this.i < this.items.length && this.peek() !== '\n') {
      const item = this.take() as Item;
      if (typeof item !== 'string') this.refuse(item, 'a # comment');
    }
  }

  // ---- here-documents ----------------------------------------------------------------------

  private heredocOperator(): void {
    const stripTabs = this.peek() === '-';
    if (stripTabs) this.i++;
    while (BLANK.has(this.peek() as string)) this.i++;
    let delimiter = '';
    let quote: string | null = null;
    while (this.i < this.items.length) {
      const item = this.peek() as Item;
      if (typeof item !== 'string') {
        this.refuse(item, 'a here-document delimiter');
        this.i++;
        delimiter += '\0'; // no line of the text can match it: the body runs to the end
        continue;
      }
      if (quote === null && WORD_END.has(item)) break;
      this.i++;
      if (quote !== null && item === quote) quote = null;
      else if (quote === null && (item === "'" || item === '"')) quote = item;
      else if (quote === null && item === '\\') delimiter += typeof this.peek() === 'string' ? (this.take() as string) : '';
      else delimiter += item;
    }
    if (delimiter === '') return this.fail('a here-document (<<) without a delimiter word');
    this.pendingHeredocs.push({ delimiter, stripTabs });
  }

  /** After a newline: the bodies of the here-documents started on the line that ended. */
  private heredocBodies(): void {
    const pending = this.pendingHeredocs;
    this.pendingHeredocs = [];
    for (const { delimiter, stripTabs } of pending) {
      for (;;) {
        if (this.i >= this.items.length) return;
        let line = '';
        let hasRef = false;
        while (this.i < this.items.length && this.peek() !== '\n') {
          const item = this.take() as Item;
          if (typeof item === 'string') line += item;
          else {
            hasRef = true;
            this.refuse(item, 'a here-document (<<)');
          }
        }
        this.i++; // the newline
        if (!hasRef && (stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
      }
    }
  }

  // ---- constructs the shell parses again ---------------------------------------------------

  /**
   * Skips a nested construct up to its closer, refusing every ref inside it as `construct`.
   * Inner quoting and nesting are followed only to find the right end.
   */
  private nested(closer: string, construct: string): void {
    const inCommand = closer === ')';
    let depth = 0;
    let caseDepth = 0;
    let word = '';
    const endWord = (): void => {
      if (word === 'case') caseDepth++;
      else if (word === 'esac' && caseDepth > 0) caseDepth--;
      word = '';
    };
    for (;;) {
      const item = this.take();
      if (item === undefined) return this.fail(`unterminated ${construct} in command`);
      if (typeof item !== 'string') {
        this.refuse(item, construct);
        word += '\0';
        continue;
      }
      if (closer === "'") {
        if (item === '\\') this.skipOne(construct);
        else if (item === "'") return;
        continue;
      }
      if (item === '\\') {
        this.skipOne(construct);
        continue;
      }
      if (closer === '`') {
        if (item === '`') return;
        continue;
      }
      if (closer === '"' && item === '"') return;
      if (closer !== '"' && item === "'") {
        this.quotedRun("'", construct);
        continue;
      }
      if (item === '"' && closer !== '"') {
        this.nested('"', construct);
        continue;
      }
      if (item === '`') {
        this.nested('`', construct);
        continue;
      }
      if (item === '$' && (this.peek() === '(' || this.peek() === '{')) {
        const open = this.take() as string;
        if (open === '(' && this.peek() === '(') {
          this.i++;
          this.nested('))', construct);
        } else this.nested(open === '(' ? ')' : '}', construct);
        continue;
      }
      if (closer === '"') continue;
      if (inCommand && item === '#' && word === '') {
        this.skipComment(construct);
        continue;
      }
      if (inCommand && item === '<' && this.peek() === '<' && this.peek(1) !== '<') {
        this.i++;
        this.heredocOperator();
        continue;
      }
      if (inCommand && item === '\n') {
        endWord();
        this.heredocBodies();
        continue;
      }
      if (closer === '}' && item === '{') depth++;
      else if (closer === '}' && item === '}') {
        if (depth === 0) return;
        depth--;
      } else if (item === '(') depth++;
      else if (item === ')') {
        if (closer === '))' && depth === 0 && this.peek() === ')') {
          this.i++;
          return;
        }
        if (inCommand && depth === 0 && caseDepth > 0) continue; // a case pattern's `)`
        if (inCommand && depth === 0) return;
        depth = Math.max(0, depth - 1);
      }
      if (inCommand && (WORD_END.has(item) || item === '\n')) endWord();
      else word += item;
    }
  }

  private skipOne(construct: string): void {
    const next = this.take();
    if (next !== undefined && typeof next !== 'string') this.refuse(next, construct);
  }

  private quotedRun(quote: string, construct: string): void {
    for (;;) {
      const item = this.take();
      if (item === undefined) return this.fail(`unterminated ${construct} in command`);
      if (item === quote) return;
      if (typeof item !== 'string') this.refuse(item, construct);
    }
  }

  private skipComment(construct: string): void {
    while (this.i < this.items.length && this.peek() !== '\n') {
      const item = this.take() as Item;
      if (typeof item !== 'string') this.refuse(item, construct);
    }
  }
}

export function scanShellTemplate(template: Template): ShellScan {
  return new Scanner(flatten(template)).scan();
}
