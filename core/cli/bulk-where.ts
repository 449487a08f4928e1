import type { RunFilterInput, RunStatus } from '../service/api.js';
import { UsageError } from './args.js';
import { parseAge } from './database.js';

/**
 * `--where 'status=running&flow=examples/02-rate-limited-api.prose'`: the Runs list's filter in
 * a query string's form (the window's filter, key for key; docs/triage.md "Bulk actions"). The
 * values are checked by the service's schema, like the window's; here only the keys and `since`.
 */

/** The keys `--where` takes, in the order the error lists them. */
const WHERE_KEYS = ['status', 'flow', 'text', 'code', 'category', 'anyCode', 'anyCategory', 'since'] as const;

export function parseWhere(text: string, now: number): RunFilterInput {
  const params = new URLSearchParams(text);
  const filter: RunFilterInput = {};
  const seen = new Set<string>();
  for (const [key, value] of params) {
    if (!(WHERE_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`--where: unknown key "${key}"; allowed keys: ${WHERE_KEYS.join(', ')}`);
    }
    if (seen.has(key)) throw new UsageError(`--where: "${key}" given more than once (list statuses with commas: status=failed,cancelled)`);
    seen.add(key);
    if (key === 'status') filter.status = value.split(',').map((s) => s.trim()).filter((s) => s !== '') as RunStatus[];
    else if (key === 'since') {
      const age = parseAge(value);
      if (age === null) throw new UsageError(`--where: since must be an age like 30m, 24h or 7d, got "${value}"`);
      filter.since = now - age;
    } else filter[key as Exclude<(typeof WHERE_KEYS)[number], 'status' | 'since'>] = value;
  }
  if (seen.size === 0) throw new UsageError(`--where needs at least one key=value; allowed keys: ${WHERE_KEYS.join(', ')}`);
  return filter;
}
