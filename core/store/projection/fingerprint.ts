import { createHash } from 'node:crypto';

/**
 * Error groups: errors that differ only in the volatile parts of their message (numbers, ids,
 * hex, paths, urls) are one group. fingerprint = hash(category, code, origin, template).
 *
 * Rules, applied in this order (earlier rules protect their match from later ones):
 *   1. urls            scheme://...                           → <url>
 *   2. uuids           8-4-4-4-12 hex                         → <uuid>
 *   3. windows paths   C:\... or \\server\...                 → <path>
 *   4. unix paths      /a/b, ~/a, ./a, ../a, or a/b.ext       → <path>
 *   5. hex             0x1f, or 7+ hex chars with a digit and a letter (shas) → <hex>
 *   6. ids             run-7f3a9c, req_12345: a token with a `-`/`_` part of 4+ chars holding a digit,
 *                      or any 8+ char token with letters and 2+ digits → <id>
 *   7. numbers         every remaining run of digits (30s → <n>s, 1.5 → <n>) → <n>
 * then whitespace is collapsed and the template is cut at 300 characters.
 *
 * Changing these rules changes fingerprints: it needs a migration that recomputes
 * `errors.fingerprint` and rebuilds `error_groups`.
 */

const TEMPLATE_MAX = 300;

const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`]+/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const WINDOWS_PATH = /(?:\b[A-Za-z]:\\|\\\\)[^\s'"<>|*?]*/g;
const UNIX_PATH = /(?:(?<![\w<>])(?:~|\.{1,2})?(?:\/[\w.@+-]+)+\/?|\b[\w.-]+(?:\/[\w.@+-]+)*\/[\w@+-]+\.[A-Za-z0-9]{1,8}\b)/g;
const HEX_PREFIXED = /\b0x[0-9a-f]+\b/gi;
const HEX_RUN = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
const TOKEN = /\b[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*\b/g;
const DIGITS = /\d+(?:\.\d+)?/g;

const HAS_DIGIT = /\d/;

function looksLikeId(token: string): boolean {
  // Both rules below need a digit: most tokens (words) are decided by this one test.
  if (!HAS_DIGIT.test(token)) return false;
  if (token.startsWith('<')) return false;
  const parts = token.split(/[-_]/);
  if (parts.length > 1 && parts.slice(1).some((p) => p.length >= 4 && /\d/.test(p))) return true;
  if (token.length >= 8 && /[A-Za-z]/.test(token)) {
    const digits = token.replace(/\D/g, '').length;
    if (digits >= 2) return true;
  }
  return false;
}

/** The message with its volatile parts replaced by placeholders. Pure. */
export function normalizeMessage(message: string): string {
  let text = message
    .replace(URL, '<url>')
    .replace(UUID, '<uuid>')
    .replace(WINDOWS_PATH, '<path>')
    .replace(UNIX_PATH, '<path>')
    .replace(HEX_PREFIXED, '<hex>')
    .replace(HEX_RUN, '<hex>');
  // Rules 6 and 7 only ever change text with a digit in it.
  if (HAS_DIGIT.test(text)) text = text.replace(TOKEN, (token) => (looksLikeId(token) ? '<id>' : token)).replace(DIGITS, '<n>');
  text = text.replace(/\s+/g, ' ').trim();
  if (text.length > TEMPLATE_MAX) text = `${text.slice(0, TEMPLATE_MAX)}…`;
  return text;
}

export interface Fingerprinted {
  fingerprint: string;
  template: string;
}

/** message → its last fingerprint with the (category, code, origin) it was made for. */
const cache = new Map<string, { category: string; code: string; origin: string; result: Fingerprinted }>();
/** sha256 input → fingerprint: messages differing only in volatile parts share a template. */
const hashes = new Map<string, string>();
const CACHE_MAX = 4096;

/**
 * 16 hex chars of sha256(category, code, origin, template). Memoized twice: by message (a storm
 * repeats messages; the message string is the key, so a hit builds no string), and by hashed
 * template (messages that differ in ids and numbers mostly share one).
 */
export function fingerprintOf(category: string, code: string, origin: string, message: string): Fingerprinted {
  const hit = cache.get(message);
  if (hit !== undefined && hit.category === category && hit.code === code && hit.origin === origin) return hit.result;
  const template = normalizeMessage(message);
  const hashed = `${category}\u0000${code}\u0000${origin}\u0000${template}`;
  let fingerprint = hashes.get(hashed);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(hashed).digest('hex').slice(0, 16);
    if (hashes.size >= CACHE_MAX) hashes.clear();
    hashes.set(hashed, fingerprint);
  }
  const result = { fingerprint, template };
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(message, { category, code, origin, result });
  return result;
}
