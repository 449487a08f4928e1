import { StoreError } from '../store-error.js';
import { clampLimit, Conditions, optionalText, optionalTime, type StatementCache } from './sql.js';
import { resolveFlows, type ErrorFilters } from './errors.js';

export interface ErrorGroupsQuery extends ErrorFilters {
  since?: number;
  until?: number;
  /** Default `count` (largest first); `last_seen` for the most recent first. */
  sort?: 'count' | 'last_seen';
  limit?: number;
}

export interface ErrorGroup {
  fingerprint: string;
  category: string;
  code: string;
  origin: string;
  /** The normalised message every member shares. */
  template: string;
  /** The newest member's message (over all time). */
  lastMessage: string;
  /** Members in the window (all time without one). */
  count: number;
  firstSeen: number;
  lastSeen: number;
}

type GroupRecord = {
  fingerprint: string; category: string; code: string; origin: string; template: string;
  last_message: string; count: number; first_seen: number; last_seen: number;
};

const toGroup = (r: GroupRecord): ErrorGroup => ({
  fingerprint: r.fingerprint,
  category: r.category,
  code: r.code,
  origin: r.origin,
  template: r.template,
  lastMessage: r.last_message,
  count: r.count,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
});

/**
 * Groups by fingerprint. Without a window or flow filter this reads `error_groups`, maintained
 * incrementally at ingest (count, first/last seen): the common "top groups" view costs one
 * index walk whatever the size of the history. With a window or a flow filter (which the
 * all-time table cannot answer) it groups the errors in the window over the ts index, joined
 * to `error_groups` for the template.
 */
export function errorGroups(cache: StatementCache, query: ErrorGroupsQuery = {}): ErrorGroup[] {
  const limit = clampLimit(query.limit);
  const sort = query.sort ?? 'count';
  if (sort !== 'count' && sort !== 'last_seen') throw new StoreError('invalid_argument', `unknown sort "${String(sort)}"; use count or last_seen`);
  const since = optionalTime('since', query.since);
  const until = optionalTime('until', query.until);
  const flow = optionalText('flow', query.flow);
  const order = sort === 'count' ? 'count DESC, last_seen DESC, fingerprint' : 'last_seen DESC, count DESC, fingerprint';

  if (since === undefined && until === undefined && flow === undefined) {
    const c = new Conditions();
    for (const dim of ['category', 'origin', 'code'] as const) {
      const value = optionalText(dim, query[dim]);
      if (value !== undefined) c.add(`${dim} = ?`, value);
    }
    const sql = `SELECT * FROM error_groups${c.where()} ORDER BY ${order} LIMIT ?`;
    return (cache.get(sql).all(...c.params, limit) as GroupRecord[]).map(toGroup);
  }

  const c = new Conditions();
  for (const dim of ['category', 'origin', 'code'] as const) {
    const value = optionalText(dim, query[dim]);
    if (value !== undefined) c.add(`e.${dim} = ?`, value);
  }
  if (flow !== undefined) {
    const flows = resolveFlows(cache, flow);
    c.add(`e.flow IN (${flows.map(() => '?').join(', ')})`, ...flows);
  }
  if (since !== undefined) c.add('e.ts >= ?', since);
  if (until !== undefined) c.add('e.ts < ?', until);
  const sql = `SELECT e.fingerprint AS fingerprint, g.category AS category, g.code AS code, g.origin AS origin,
      g.template AS template, g.last_message AS last_message,
      COUNT(*) AS count, MIN(e.ts) AS first_seen, MAX(e.ts) AS last_seen
    FROM errors AS e JOIN error_groups AS g ON g.fingerprint = e.fingerprint${c.where()}
    GROUP BY e.fingerprint ORDER BY ${order} LIMIT ?`;
  return (cache.get(sql).all(...c.params, limit) as GroupRecord[]).map(toGroup);
}
