import { hinted } from './dialect-sql.js';
import { Dialect, get, type Query } from './plan.js';
import { optionalText, type Conditions } from './sql.js';

/** The error filters of a run list (core/store/queries/runs.ts: RunFilters). */
export interface RunErrorFilters {
  /**
   * The run's ending error (docs/semantics.md F1): its code or its root cause's code
   * (`RUNTIME_CRASHED` finds a run that gave up after crashes), and its category.
   */
  code?: string;
  category?: string;
  /** Any error occurrence of the run has this code / category, whatever became of it. */
  anyCode?: string;
  anyCategory?: string;
  /** Any error occurrence of the run is in this error group (an issue: its fingerprint). */
  issue?: string;
}

/** How a list page reads the runs: the sort it walks, or a count (which reads every match anyway). */
export type ErrorFilterUse = { page: true; sortedByStart: boolean; limit: number } | { page: false };

/**
 * Whether an ending-error filter matches so many runs that a page is found sooner walking the
 * sort's index and skipping the runs that do not match than reading every match through the
 * filter's index and sorting them all (measured: `code=RUNTIME_TIMEOUT`, 14,000 runs of
 * 1,000,000, took 45 ms on a quiet machine and 150–1,200 ms under load sorted; walked, 2–25 ms).
 * Walking reads about limit × runs / matches rows, sorting about the matches: the two meet near
 * √(limit × runs). SQLite only, as `dense` in runs.ts: PostgreSQL's planner weighs it itself.
 */
function* common(dialect: Dialect, column: 'ending_code' | 'ending_category', value: string, limit: number): Query<boolean> {
  if (dialect === Dialect.postgres) return false;
  const runs = (yield* get<{ n: number | null }>('SELECT SUM(count) AS n FROM run_counts'))?.n ?? 0;
  const threshold = Math.ceil(Math.sqrt(limit * runs));
  if (threshold === 0) return false;
  const also = column === 'ending_code' ? ' UNION ALL SELECT 1 FROM runs WHERE ending_root_code = ? AND (ending_code IS NULL OR ending_code <> ?)' : '';
  const row = yield* get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM runs WHERE ${column} = ?${also} LIMIT ?) AS hits`,
    column === 'ending_code' ? [value, value, value, threshold] : [value, threshold],
  );
  return (row?.n ?? 0) >= threshold;
}

/**
 * The error filters as conditions. `code` / `category` read the ending error's columns (indexed:
 * runs_ending_code, runs_ending_root_code, runs_ending_category; walked past instead when common,
 * see `common`). `anyCode` / `anyCategory` find the runs with such an occurrence through the error
 * groups (a code or category names its groups' fingerprints) and the errors' `(fingerprint, ts)`
 * index, which holds each error's run: no index of its own on the hot errors table.
 */
export function* addErrorFilters(dialect: Dialect, c: Conditions, query: RunErrorFilters, use: ErrorFilterUse): Query<void> {
  const code = optionalText('code', query.code);
  if (code !== undefined && code !== '') {
    const walk = use.page && (yield* common(dialect, 'ending_code', code, use.limit));
    c.add(`(${hinted(dialect, 'ending_code', walk)} = ? OR ${hinted(dialect, 'ending_root_code', walk)} = ?)`, code, code);
  }
  const category = optionalText('category', query.category);
  if (category !== undefined && category !== '') {
    // Its index is (category, started_at, id): sorted by start, it already walks in order.
    const walk = use.page && !use.sortedByStart && (yield* common(dialect, 'ending_category', category, use.limit));
    c.add(`${hinted(dialect, 'ending_category', walk)} = ?`, category);
  }
  for (const [key, column] of [
    ['anyCode', 'code'],
    ['anyCategory', 'category'],
  ] as const) {
    const value = optionalText(key, query[key]);
    if (value === undefined || value === '') continue;
    c.add(`id IN (SELECT e.run_id FROM errors AS e WHERE e.fingerprint IN (SELECT g.fingerprint FROM error_groups AS g WHERE g.${column} = ?))`, value);
  }
  const issue = optionalText('issue', query.issue);
  // One row per run the issue hit (migration 18), however many occurrences each had: a tenth of
  // the issue's occurrences at ten errors a run. SQLite otherwise reads every run of the issue by
  // id and sorts them for one page (812 ms for the 20 newest of a common issue at a million runs).
  if (issue !== undefined && issue !== '') {
    // Walking, each run read is one probe of error_group_runs' key, not the issue's every run gathered first.
    if (use.page && (yield* commonIssue(dialect, issue, use.limit))) {
      c.add('EXISTS (SELECT 1 FROM error_group_runs AS g WHERE g.fingerprint = ? AND g.run_id = runs.id)', issue);
    } else c.add('id IN (SELECT g.run_id FROM error_group_runs AS g WHERE g.fingerprint = ?)', issue);
  }
}

/**
 * Whether an issue hit so many runs that a page is found sooner walking the sort's index and
 * asking the issue's run set of each run (as `common`): the issue's run count is kept at commit
 * (error_group_stats, migration 18), so deciding costs two lookups. SQLite only.
 */
function* commonIssue(dialect: Dialect, fingerprint: string, limit: number): Query<boolean> {
  if (dialect === Dialect.postgres) return false;
  const runs = (yield* get<{ n: number | null }>('SELECT SUM(count) AS n FROM run_counts'))?.n ?? 0;
  const threshold = Math.ceil(Math.sqrt(limit * runs));
  if (threshold === 0) return false;
  const hit = (yield* get<{ runs: number }>('SELECT runs FROM error_group_stats WHERE fingerprint = ?', [fingerprint]))?.runs ?? 0;
  return hit >= threshold;
}
