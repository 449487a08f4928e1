import type { HivewatchApi, RunCounts, RunFilterInput, RunSort, RunSummary } from '../../core/service/api.js';
import type { RunsStore } from '../live/runs-store.js';
import { RUNS_PAGE_SIZE, takeFirstRuns } from './first-page.js';
import { compareRuns, formatSort, serverFilter, type RunsQuery } from './runs-query.js';
import { matchesRunFilter } from '../../core/common/run-filter.js';

/**
 * The rows the Runs table shows for one query: keyset pages from the server (the first page, then
 * the next one when the table scrolls near its end) and the counts for the chips, kept live by
 * the runs store. A live change is placed by the server's own order inside the loaded rows: a
 * run that changes moves (or leaves when it no longer matches); a run that now matches (a new
 * one, or one whose status changed into the filter) appears where it sorts when that is within
 * the loaded rows (at the top for newest first) and otherwise arrives with its page. A change
 * that comes while a page is being read is placed again once the page lands: the server may have
 * read the page before it. Counts are re-read, throttled, when a run starts or changes status.
 */

export interface RunsViewState {
  phase: 'loading' | 'ready' | 'error';
  error: string | null;
  rows: readonly RunSummary[];
  /** More rows exist past the loaded ones. */
  hasMore: boolean;
  loadingMore: boolean;
  counts: RunCounts | null;
}

export interface RunsViewOptions {
  pageSize?: number;
  /** Re-read counts at most this often while runs change (ms). */
  countsEveryMs?: number;
  now?: () => number;
  /** Timer for the counts throttle (tests pass a manual one). */
  setTimer?: (fn: () => void, ms: number) => unknown;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class RunsView {
  private state: RunsViewState = { phase: 'loading', error: null, rows: [], hasMore: false, loadingMore: false, counts: null };
  private readonly listeners = new Set<() => void>();
  private readonly filter: RunFilterInput;
  private readonly compare: (a: RunSummary, b: RunSummary) => number;
  private readonly sort: RunSort;
  /**
   * What each live-changed run counted as when last seen (its status, and whether it waited for a
   * usage limit): the chips move only when one changes. A run that starts or stops waiting keeps
   * its status `running`, yet the "waiting for limit" chip counts it.
   */
  private readonly countedAs = new Map<string, string>();
  private readonly pageSize: number;
  private readonly countsEveryMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly now: () => number;
  private cursor: string | null = null;
  private generation = 0;
  private stopped = false;
  private countsTimer = false;
  private countsAgain = false;
  private unsubscribe: (() => void) | null = null;
  /**
   * Runs that changed while a page was being read. The server may have read the page before the
   * change, so a run that came into the filter meanwhile is not in it and no later change may come
   * to place it: these are placed again once the page has landed.
   */
  private readonly changedDuringRead = new Set<string>();
  private readsInFlight = 0;

  constructor(
    private readonly api: HivewatchApi,
    private readonly store: RunsStore,
    private readonly query: RunsQuery,
    options: RunsViewOptions = {},
  ) {
    this.pageSize = options.pageSize ?? RUNS_PAGE_SIZE;
    this.countsEveryMs = options.countsEveryMs ?? 1_000;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.now = options.now ?? Date.now;
    this.filter = serverFilter(query, this.now());
    this.compare = compareRuns(query.sort);
    this.sort = formatSort(query.sort);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): RunsViewState => this.state;

  start(): void {
    this.stopped = false;
    this.unsubscribe = this.store.onRunsChanged((ids) => this.patch(ids));
    void this.reload();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Reads the first page and the counts again (after a stream reset, or the error state's retry). */
  async reload(): Promise<void> {
    const mine = ++this.generation;
    if (this.state.phase === 'error') this.set({ phase: 'loading', error: null });
    // Rows first: the server answers in order, and the rows are what the operator waits for.
    this.readsInFlight++;
    let landed = false;
    try {
      const input = { ...this.filter, sort: this.sort, limit: this.pageSize };
      // The window's start may have asked for this very page already (first-page.ts).
      const page = await (takeFirstRuns(input, this.now()) ?? this.api.listRuns(input));
      if (this.stopped || mine !== this.generation) return;
      this.cursor = page.nextCursor;
      this.set({ phase: 'ready', error: null, rows: page.items.map((r) => this.fresher(r)), hasMore: page.nextCursor !== null, loadingMore: false });
      landed = true;
    } catch (error) {
      if (!this.stopped && mine === this.generation) this.set({ phase: 'error', error: message(error) });
    } finally {
      this.readEnded(landed);
    }
    if (!this.stopped && mine === this.generation) await this.readCounts(mine);
  }

  /** The next page, once (calls while one is in flight are ignored). */
  async more(): Promise<void> {
    if (!this.cursor || this.state.loadingMore || this.state.phase !== 'ready') return;
    const mine = this.generation;
    this.set({ loadingMore: true });
    this.readsInFlight++;
    let landed = false;
    try {
      const page = await this.api.listRuns({ ...this.filter, sort: this.sort, limit: this.pageSize, cursor: this.cursor });
      if (this.stopped || mine !== this.generation) return;
      this.cursor = page.nextCursor;
      // A live change may already have placed a run of this page: keep one of each.
      const shown = new Set(this.state.rows.map((r) => r.id));
      const added = page.items.filter((r) => !shown.has(r.id)).map((r) => this.fresher(r));
      this.set({ rows: [...this.state.rows, ...added], hasMore: page.nextCursor !== null, loadingMore: false });
      landed = true;
    } catch {
      if (!this.stopped && mine === this.generation) this.set({ loadingMore: false });
    } finally {
      this.readEnded(landed);
    }
  }

  /** A page read ended; when it landed, the runs that changed meanwhile are placed again. */
  private readEnded(landed: boolean): void {
    this.readsInFlight--;
    const ids = new Set(this.changedDuringRead);
    if (this.readsInFlight === 0) this.changedDuringRead.clear();
    if (landed && ids.size > 0) this.patch(ids);
  }

  /** The store's copy when it has one (it is at least as new as a listed row it has seen live). */
  private fresher(row: RunSummary): RunSummary {
    return this.store.getSnapshot().runs.get(row.id) ?? row;
  }

  private async readCounts(mine: number): Promise<void> {
    try {
      const counts = await this.api.countRuns(this.filter);
      if (!this.stopped && mine === this.generation) this.set({ counts });
    } catch {
      // Chips keep their last counts; the next change reads them again.
    }
  }

  /** Counts at most once per `countsEveryMs` while runs keep changing, the last change included. */
  private countsSoon(): void {
    if (this.countsTimer) {
      this.countsAgain = true;
      return;
    }
    this.countsTimer = true;
    void this.readCounts(this.generation);
    this.setTimer(() => {
      this.countsTimer = false;
      if (this.countsAgain && !this.stopped) {
        this.countsAgain = false;
        this.countsSoon();
      }
    }, this.countsEveryMs);
  }

  private patch(ids: ReadonlySet<string>): void {
    if (this.stopped) return;
    if (this.readsInFlight > 0) for (const id of ids) this.changedDuringRead.add(id);
    const known = this.store.getSnapshot().runs;
    let recount = false;
    for (const id of ids) {
      const run = known.get(id);
      if (run === undefined) continue;
      const counted = run.waitingUntil != null ? `${run.status}+waiting-limit` : run.status;
      if (this.countedAs.get(id) !== counted) {
        this.countedAs.set(id, counted);
        recount = true;
      }
    }
    if (recount) this.countsSoon();
    if (this.state.phase !== 'ready') return;
    const shown = new Set(this.state.rows.map((r) => r.id));
    const last = this.state.rows.at(-1);
    const changed = new Map<string, RunSummary | null>();
    for (const id of ids) {
      const run = known.get(id);
      if (!run) continue;
      const match = matchesRunFilter(run, this.filter);
      if (shown.has(id)) {
        // A shown run whose match cannot be told (category) stays: the server put it here.
        changed.set(id, match === false ? null : run);
      } else if (match === true && (!this.state.hasMore || !last || this.compare(run, last) <= 0)) {
        changed.set(id, run);
      }
    }
    if (changed.size === 0) return;
    const rows: RunSummary[] = [];
    for (const row of this.state.rows) {
      const next = changed.get(row.id);
      if (next === undefined) rows.push(row);
      else if (next !== null) rows.push(next);
    }
    for (const [id, run] of changed) if (run && !shown.has(id)) rows.push(run);
    rows.sort(this.compare);
    this.set({ rows });
    // Most loaded rows left the filter (a bulk cancel of "running" runs): the next page fills in,
    // or the table would say nothing matches while the server holds more that do.
    if (this.state.hasMore && rows.length < this.pageSize / 2) void this.more();
  }

  private set(patch: Partial<RunsViewState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
