import { agentSecrets, hostSecrets, type SecretHolder } from './secret-names.js';
import { RedactionStream } from './redaction-stream.js';

export { inheritedEnv, agentSecrets, type SecretHolder } from './secret-names.js';

/**
 * Secrets never leave the process that needs them. A secret (secret-names.ts says which values
 * are) is given to its agent's process and to nothing else: every text Hivewatch stores or shows
 * that could hold one (an error message, a stdout/stderr tail, an output, the journaled flow
 * text, a channel value) has each occurrence replaced by `[secret NAME]`, where the text is made.
 *
 * A value is matched whole, as it stands in the text: where it begins with a letter, digit or
 * underscore (of any script) the character before it must not be one, and where it ends with
 * one the character after it must not be one. `timeout` is found in "a timeout." and in
 * "claude-timeout", not in "timeouts" or "my_timeout". Each value is also matched in its
 * JSON-escaped form, as an agent's JSON output carries it.
 */

/** The redaction marker: names the variable, never the value or anything derived from it. */
export function secretMarker(name: string): string {
  return `[secret ${name}]`;
}

/** Longest variable name a marker is recognised with (bounded, so a stream knows how much to hold back). */
const MARKER_NAME_MAX = 128;
const MARKER_NAME = `[A-Za-z_][A-Za-z0-9_]{0,${MARKER_NAME_MAX - 1}}`;

/** A marker in a text, its variable name captured. */
export function markerPattern(): RegExp {
  return new RegExp(String.raw`\[secret (${MARKER_NAME})\]`, 'g');
}

/** A marker already in a text is left alone, so redacting twice changes nothing. */
const MARKER_SOURCE = String.raw`\[secret ${MARKER_NAME}\]`;
const MARKER_MAX_CHARS = secretMarker('x').length - 1 + MARKER_NAME_MAX;

const WORD_CHAR = String.raw`[\p{L}\p{M}\p{N}_]`;
const IS_WORD_CHAR = new RegExp(`^${WORD_CHAR}$`, 'u');

/** Only the syntax characters: in a `u` pattern escaping anything else (`-`) is a syntax error. */
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The pattern of one value: itself, bounded by non-word characters on the sides where it has word characters. */
function wholeValue(value: string): string {
  const chars = [...value];
  const before = IS_WORD_CHAR.test(chars[0] as string) ? `(?<!${WORD_CHAR})` : '';
  const after = IS_WORD_CHAR.test(chars.at(-1) as string) ? `(?!${WORD_CHAR})` : '';
  return `${before}${escapeRegExp(value)}${after}`;
}

/**
 * Keys of journaled values that are Hivewatch's own vocabulary, never content: an error's
 * `origin` (`agent:NAME`, `runtime:NAME`, `check:NAME`), its `code`, `category` and
 * recovery hint. They are left as written, so no secret can rewrite what says where a failure
 * came from or what to do about it.
 */
const VOCABULARY_KEYS: ReadonlySet<string> = new Set(['origin', 'code', 'category', 'recovery_hint', 'recoveryHint']);

/** Replaces secrets in texts and in every string of a JSON-like value. Immutable once built. */
export class Redactor {
  private readonly names = new Map<string, string>();
  private readonly pattern: RegExp | null;
  /** The longest text one match can cover, in UTF-16 units. */
  readonly longestMatch: number;

  constructor(...sources: ReadonlyMap<string, string>[]) {
    for (const secrets of sources) {
      for (const [value, name] of secrets) {
        if (value === '') continue;
        this.names.set(value, name);
        const escaped = JSON.stringify(value).slice(1, -1);
        if (escaped !== value) this.names.set(escaped, name);
      }
    }
    const values = [...this.names.keys()].sort((a, b) => b.length - a.length);
    // One pass, longest first; an existing marker matches first and is kept as it is.
    this.pattern = values.length === 0 ? null : new RegExp(`${MARKER_SOURCE}|${values.map(wholeValue).join('|')}`, 'gu');
    this.longestMatch = Math.max(MARKER_MAX_CHARS, values[0]?.length ?? 0);
  }

  static none(): Redactor {
    return new Redactor();
  }

  /** The secrets of a flow's agents (their `env:` and `secrets:`). */
  static ofAgents(agents: Iterable<SecretHolder>): Redactor {
    return new Redactor(...[...agents].map(agentSecrets));
  }

  /**
   * What a child's output may hold: the secrets of its agent (or of every agent of the flow, for
   * a check that runs in their worktrees) and of Hivewatch's own environment, which it inherits.
   */
  static forChild(agents: SecretHolder | Iterable<SecretHolder>, hostEnv: Readonly<Record<string, string | undefined>> = process.env): Redactor {
    const holders = 'env' in agents ? [agents] : [...agents];
    return new Redactor(...holders.map(agentSecrets), hostSecrets(hostEnv));
  }

  get empty(): boolean {
    return this.pattern === null;
  }

  /** The pattern to scan with (one per caller: a global RegExp carries its position). */
  scanner(): RegExp | null {
    return this.pattern === null ? null : new RegExp(this.pattern.source, this.pattern.flags);
  }

  /** What replaces one match of the scanner: the marker of its variable, or a marker as it was. */
  replacement(found: string): string {
    const name = this.names.get(found);
    return name === undefined ? found : secretMarker(name);
  }

  text(text: string): string {
    if (this.pattern === null || text === '') return text;
    return text.replace(this.pattern, (found) => this.replacement(found));
  }

  /** Every string inside `value` (objects, arrays), redacted; other values as they are. */
  deep<T>(value: T): T {
    if (this.pattern === null) return value;
    return this.walk(value) as T;
  }

  /** A redactor for text that arrives in pieces (a child's output): see redaction-stream.ts. */
  stream(sink: (text: string) => void): RedactionStream {
    return new RedactionStream(this, sink);
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = VOCABULARY_KEYS.has(key) && typeof item === 'string' ? item : this.walk(item);
    return out;
  }
}
