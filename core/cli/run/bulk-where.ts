import type { RunFilterInput, RunStatus } from '../../service/api.js';
import { UsageError } from '../args.js';
import { ageFlag } from '../database.js';

/**
 * `--where 'status=running&flow=examples/02-rate-limited-api.prose'`: the Runs list's filter in
 * a query string's form (the window's filter, key for key; docs/triage.md "Bulk actions"). A
 * filter only ever narrows: every part is `key=value` with a known key and a value, so nothing
 * the operator wrote is dropped on the way (an empty `text=` once meant "every run"). The values
 * are checked again by the service's schema, like the window's; its words name the key.
 */

/** The keys `--where` takes, in the order the error lists them. */
const WHERE_KEYS = ['status', 'flow', 'text', 'code', 'category', 'anyCode', 'anyCategory', 'since'] as const;
type WhereKey = (typeof WHERE_KEYS)[number];

const KEY_LIST = `allowed keys: ${WHERE_KEYS.join(', ')}`;

/** A query string's decoding (`+` is a space, `%xx` a byte), refusing a broken escape instead of keeping it. */
function decode(part: string, whole: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new UsageError(`--where: "${whole}" holds a broken %-escape; write %25 for a literal %`);
  }
}

/** One `key=value` part, both decoded; refused when it is not one. */
function splitPart(part: string): [string, string] {
  const at = part.indexOf('=');
  const key = decode(at < 0 ? part : part.slice(0, at), part);
  if (at < 0) throw new UsageError(`--where: "${key}" needs a value (${key}=…); ${KEY_LIST}`);
  if (!(WHERE_KEYS as readonly string[]).includes(key)) throw new UsageError(`--where: unknown key "${key}"; ${KEY_LIST}`);
  const value = decode(part.slice(at + 1), part);
  if (value.trim() === '') throw new UsageError(`--where: ${key} needs a value (${key}=…); an empty one would not narrow the filter`);
  return [key, value];
}

function statusesOf(value: string): RunStatus[] {
  const statuses = value.split(',').map((s) => s.trim());
  if (statuses.includes(''))
    throw new UsageError(`--where: status has an empty entry in "${value}"; list statuses with single commas: status=failed,cancelled`);
  return statuses as RunStatus[];
}

export function parseWhere(text: string, now: number): RunFilterInput {
  if (text.trim() === '') throw new UsageError(`--where needs at least one key=value; ${KEY_LIST}`);
  const filter: RunFilterInput = {};
  const seen = new Set<WhereKey>();
  const parts = text.split('&');
  if (parts.includes('')) throw new UsageError('--where: an empty condition (two "&" in a row, or one at either end); join key=value pairs with single "&"s');
  for (const part of parts) {
    const [name, value] = splitPart(part);
    const key = name as WhereKey;
    if (seen.has(key)) throw new UsageError(`--where: "${key}" given more than once (list statuses with commas: status=failed,cancelled)`);
    seen.add(key);
    if (key === 'status') filter.status = statusesOf(value);
    else if (key === 'since') filter.since = now - ageFlag(value, '--where: since');
    else filter[key] = value.trim();
  }
  return filter;
}
