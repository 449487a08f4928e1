import type {
  DatabaseStatus,
  DesktopAlertFeed,
  DesktopAlertView,
  HivewatchApi,
  HivewatchEvent,
  JournaledEvent,
  ListRunsInput,
  LiveEvent,
  Page,
  RunFilterInput,
  RunDetail,
  RunCounts,
  RunSummary,
  SubscribeOptions,
} from '../../core/service/api.js';
import { applyToLiveRun, type LiveRun } from '../live/run-summary.js';
import { compareRuns, parseSort } from '../runs/runs-query.js';
import { matchesRunFilter } from '../../core/common/run-filter.js';

/** The service's DESKTOP_FEED_OVERLAP_MS (core/service/alerts/desktop-feed.ts): a read looks back this far past `after`. */
const FEED_OVERLAP_MS = 60_000;

/**
 * An in-memory HivewatchApi over journals the test writes: runs are whatever their events say
 * (projected with the renderer's own summary reducer), the stream is pushed by hand. Methods the
 * tests do not need reject, so an unexpected call is loud.
 */
export class FakeApi implements HivewatchApi {
  readonly journals = new Map<string, HivewatchEvent[]>();
  private readonly listeners = new Set<(batch: LiveEvent[]) => void>();
  private readonly resetListeners = new Set<() => void>();
  private nextId = 1;
  calls: string[] = [];

  /** Journals events without streaming them (history that existed before the UI opened). */
  record(events: readonly HivewatchEvent[]): LiveEvent[] {
    const out: LiveEvent[] = [];
    for (const event of events) {
      const list = this.journals.get(event.runId) ?? [];
      if (!list.some((e) => e.seq === event.seq)) list.push(event);
      list.sort((a, b) => a.seq - b.seq);
      this.journals.set(event.runId, list);
      out.push({ id: this.nextId++, event });
    }
    return out;
  }

  /** Journals events and streams them as one batch. */
  emit(events: readonly HivewatchEvent[]): void {
    const batch = this.record(events);
    for (const listener of this.listeners) listener(batch);
  }

  /** Streams events as if they were live, without journaling them again (duplicates, replays). */
  stream(events: readonly HivewatchEvent[]): void {
    const batch = events.map((event) => ({ id: this.nextId++, event }));
    for (const listener of this.listeners) listener(batch);
  }

  project(runId: string): LiveRun | undefined {
    let live: LiveRun | undefined;
    for (const e of this.journals.get(runId) ?? []) live = applyToLiveRun(live, e);
    return live;
  }

  summaries(): RunSummary[] {
    return [...this.journals.keys()]
      .map((id) => this.project(id)?.summary)
      .filter((s): s is RunSummary => s !== undefined)
      .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : -1));
  }

  private readonly subscriptions = new Set<SubscribeOptions>();

  subscribe(listener: (batch: LiveEvent[]) => void, options: SubscribeOptions = {}): () => void {
    this.listeners.add(listener);
    if (options.onReset) this.resetListeners.add(options.onReset);
    this.subscriptions.add(options);
    queueMicrotask(() => options.onReady?.(this.nextId - 1));
    return () => {
      this.listeners.delete(listener);
      if (options.onReset) this.resetListeners.delete(options.onReset);
      this.subscriptions.delete(options);
    };
  }

  /** The server went away: every stream reports the drop. */
  outage(): void {
    for (const options of this.subscriptions) options.onDisconnect?.();
  }

  /** A restarted server: it cannot resume the old stream (reset), then the stream is ready. */
  restarted(): void {
    for (const options of this.subscriptions) {
      options.onReset?.();
      options.onReady?.(this.nextId - 1);
    }
  }

  /** The host's alert deliveries changed: every stream says so. */
  alertDeliveriesChanged(desktop: boolean): void {
    for (const options of this.subscriptions) options.onAlertDeliveries?.({ desktop });
  }

  /** The stream could not resume: subscribers must re-read. */
  reset(): void {
    for (const listener of this.resetListeners) listener();
  }

  /** Lists runs without their journal position, as a summary kept up from live events is. */
  unpositioned = false;
  /** Set: listRuns reads when called but answers only once this settles (a slow server). */
  listGate: Promise<void> | null = null;

  private lastSeqOf(runId: string): number {
    return this.journals.get(runId)?.at(-1)?.seq ?? 0;
  }

  async listRuns(input: ListRunsInput): Promise<Page<RunSummary>> {
    this.calls.push('listRuns');
    const { sort, limit = 50, cursor, ...filter } = input;
    const order = compareRuns(parseSort(sort ?? '-started'));
    // Keyset, like the store: the cursor is the last row as it was listed.
    const after = cursor ? (JSON.parse(cursor) as RunSummary) : null;
    const all = this.summaries()
      .filter((r) => matchesRunFilter(r, filter) === true && (after === null || order(r, after) > 0))
      .sort(order);
    const items = all.slice(0, limit);
    const last = items.at(-1);
    // As the service: each summary says the journal position it was read at.
    const positioned = this.unpositioned ? items : items.map((r) => ({ ...r, lastSeq: this.lastSeqOf(r.id) }));
    if (this.listGate) await this.listGate;
    return { items: positioned, nextCursor: all.length > limit && last ? JSON.stringify(last) : null };
  }

  async countRuns(input: RunFilterInput): Promise<RunCounts> {
    this.calls.push('countRuns');
    const { status, ...rest } = input;
    const byStatus: RunCounts['byStatus'] = {};
    let total = 0;
    for (const run of this.summaries()) {
      if (matchesRunFilter(run, rest) !== true) continue;
      byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
      // As the store: a waiting run counts in its own status and in `waiting-limit`.
      if (run.waitingUntil != null) byStatus['waiting-limit'] = (byStatus['waiting-limit'] ?? 0) + 1;
      if (run.approval != null) byStatus['waiting-approval'] = (byStatus['waiting-approval'] ?? 0) + 1;
      if (!status || status.includes(run.status)) total++;
    }
    return { total, byStatus, byFlow: [] };
  }

  async getRun({ runId }: { runId: string }): Promise<RunDetail | null> {
    this.calls.push(`getRun:${runId}`);
    const live = this.project(runId);
    if (!live) return null;
    return {
      run: { ...live.summary, lastSeq: this.lastSeqOf(runId) },
      steps: [],
      tasks: [],
      lastSeq: this.lastSeqOf(runId),
      lineage: { retries: [], resumes: [], previous: null },
    };
  }

  /** Journaled wall times by `runId#seq` (a virtual-clock run's); an event without one was journaled at its ts. */
  readonly walls = new Map<string, number>();

  async getEvents({ runId, afterSeq = 0, limit = 1_000 }: { runId: string; afterSeq?: number; limit?: number }): Promise<JournaledEvent[]> {
    this.calls.push(`getEvents:${runId}:${afterSeq}`);
    return (this.journals.get(runId) ?? [])
      .filter((e) => e.seq > afterSeq)
      .slice(0, limit)
      .map((e) => ({ ...e, wall: this.walls.get(`${e.runId}#${e.seq}`) ?? e.ts }));
  }

  private unsupported(name: string): Promise<never> {
    return Promise.reject(new Error(`FakeApi.${name} is not implemented`));
  }
  startRun(): Promise<{ runId: string }> {
    return this.unsupported('startRun');
  }
  cancelRun(): Promise<never> {
    return this.unsupported('cancelRun');
  }
  retryRun(): Promise<{ runId: string }> {
    return this.unsupported('retryRun');
  }
  resumeRun(): Promise<{ runId: string }> {
    return this.unsupported('resumeRun');
  }
  bulkRuns(): Promise<never> {
    return this.unsupported('bulkRuns');
  }
  skipBackoff(): Promise<never> {
    return this.unsupported('skipBackoff');
  }
  /** What `databaseStatus` answers (a test sets an outage). */
  database: DatabaseStatus = { unavailableForMs: null, waitingRuns: 0 };

  databaseStatus(): Promise<DatabaseStatus> {
    return Promise.resolve({ ...this.database });
  }

  listFlows(): Promise<never> {
    return this.unsupported('listFlows');
  }
  checkFlow(): Promise<never> {
    return this.unsupported('checkFlow');
  }
  saveFlow(): Promise<never> {
    return this.unsupported('saveFlow');
  }
  /** Muted flows, as the database would keep them. */
  readonly muted = new Set<string>();
  async getNotificationSettings(): Promise<{ mutedFlows: string[] }> {
    this.calls.push('getNotificationSettings');
    return { mutedFlows: [...this.muted].sort() };
  }
  async setFlowMuted({ flow, muted }: { flow: string; muted: boolean }): Promise<{ mutedFlows: string[] }> {
    this.calls.push(`setFlowMuted:${flow}:${muted}`);
    if (muted) this.muted.add(flow);
    else this.muted.delete(flow);
    return { mutedFlows: [...this.muted].sort() };
  }
  errorCounts(): Promise<never> {
    return this.unsupported('errorCounts');
  }
  failureCounts(): Promise<never> {
    return this.unsupported('failureCounts');
  }
  errorSeries(): Promise<never> {
    return this.unsupported('errorSeries');
  }
  errorGroups(): Promise<never> {
    return this.unsupported('errorGroups');
  }
  listErrors(): Promise<never> {
    return this.unsupported('listErrors');
  }
  listAlertRules(): Promise<never> {
    return this.unsupported('listAlertRules');
  }
  addAlertRule(): Promise<never> {
    return this.unsupported('addAlertRule');
  }
  removeAlertRule(): Promise<never> {
    return this.unsupported('removeAlertRule');
  }
  testAlertRule(): Promise<never> {
    return this.unsupported('testAlertRule');
  }
  listAlertDeliveries(): Promise<never> {
    return this.unsupported('listAlertDeliveries');
  }
  /** The desktop feed as a test scripts it: what `listDesktopAlerts` answers, and its clock. */
  readonly desktopAlerts: DesktopAlertView[] = [];
  desktopNow = 0;
  listDesktopAlerts(input?: { after?: number }): Promise<DesktopAlertFeed> {
    this.calls.push(`listDesktopAlerts:${input?.after ?? ''}`);
    const after = input?.after;
    // Like the service: what is newer than `after` (the first read: now) less the overlap.
    const alerts = this.desktopAlerts.filter((a) => a.createdAt > (after ?? this.desktopNow) - FEED_OVERLAP_MS);
    return Promise.resolve({ alerts, through: this.desktopNow });
  }
  usageByFlow(): Promise<never> {
    return this.unsupported('usageByFlow');
  }
  costliestRuns(): Promise<never> {
    return this.unsupported('costliestRuns');
  }
  costSplit(): Promise<never> {
    return this.unsupported('costSplit');
  }
  flowHealth(): Promise<never> {
    return this.unsupported('flowHealth');
  }
  listIssues(): Promise<never> {
    return this.unsupported('listIssues');
  }
  getIssue(): Promise<never> {
    return this.unsupported('getIssue');
  }
  setIssueStatus(): Promise<never> {
    return this.unsupported('setIssueStatus');
  }
  getIssueDetail(): Promise<never> {
    return this.unsupported('getIssueDetail');
  }
}
