import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import type { Template } from '../syntax/ast.js';
import type { TemplateRef } from '../syntax/template.js';

/**
 * An argv command template (`command:` without `shell: true`) split into words with sh-like
 * quoting ('...', "...", backslash), keeping each `{name}` as a placeholder inside its word.
 * The check (`command-safety.ts`) reads the words to see where a placeholder lands, and the
 * runtime (`core/runtimes/command-line.ts`) fills the same words in: one splitter, so the two can
 * never disagree about which argument a value becomes. A value is never split: it is appended
 * to its word verbatim.
 */

/** A piece of one word: literal text (quotes removed) or a placeholder. */
type WordPiece = string | TemplateRef;

export interface TemplateWord {
  pieces: WordPiece[];
}

/** Bad quoting in a command template: the flow check reports it, the runtime refuses the command. */
export class TemplateSplitError extends HivewatchError {
  constructor(message: string) {
    super('USER_INVALID_CONFIG', { message });
    this.name = 'TemplateSplitError';
  }
}

/** Inside double quotes a backslash only escapes these (as in sh). */
const DOUBLE_QUOTE_ESCAPABLE = new Set(['"', '\\', '$', '`']);
const WHITESPACE = /\s/;

class WordBuilder {
  readonly words: TemplateWord[] = [];
  private pieces: WordPiece[] = [];
  // A word can be started yet empty: `''`, or a placeholder whose value is the empty string.
  private started = false;

  text(text: string): void {
    const last = this.pieces[this.pieces.length - 1];
    if (typeof last === 'string') this.pieces[this.pieces.length - 1] = last + text;
    else this.pieces.push(text);
    this.started = true;
  }

  ref(ref: TemplateRef): void {
    this.pieces.push(ref);
    this.started = true;
  }

  start(): void {
    this.started = true;
  }

  end(): void {
    if (this.started) this.words.push({ pieces: this.pieces });
    this.pieces = [];
    this.started = false;
  }
}

/** Splits the template into words. Throws TemplateSplitError for bad quoting. */
export function splitTemplateWords(template: Template): TemplateWord[] {
  const out = new WordBuilder();
  let quote: "'" | '"' | null = null;
  for (const part of template.parts) {
    if (part.kind === 'ref') {
      out.ref(part);
      continue;
    }
    const text = part.text;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      if (quote === "'") {
        if (ch === "'") quote = null;
        else out.text(ch);
      } else if (quote === '"') {
        if (ch === '"') quote = null;
        else if (ch === '\\' && i + 1 < text.length && DOUBLE_QUOTE_ESCAPABLE.has(text[i + 1] as string)) out.text(text[++i] as string);
        else if (ch === '\\' && text[i + 1] === '\n')
          i++; // line continuation
        else out.text(ch);
      } else if (WHITESPACE.test(ch)) {
        out.end();
      } else if (ch === "'" || ch === '"') {
        quote = ch;
        out.start();
      } else if (ch === '\\') {
        const next = text[i + 1];
        if (next === undefined) throw new TemplateSplitError('a backslash at the end of a command escapes nothing');
        i++;
        if (next !== '\n') out.text(next);
      } else {
        out.text(ch);
      }
    }
  }
  if (quote !== null) throw new TemplateSplitError(`unterminated ${quote === "'" ? 'single' : 'double'} quote in command`);
  out.end();
  return out.words;
}
