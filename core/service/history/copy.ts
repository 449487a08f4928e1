import type { HivewatchEvent } from '../../base/events.js';
import { EXTERNAL_FLOW_PREFIX, sessionKeyOf } from '../../otel/mapping.js';
import { ACTIVE_RUN_STATUSES } from '../../common/run-statuses.js';
import { StoreError, type HivewatchStore, type RunRow } from '../../store/index.js';
import type { ExternalSessionRow } from '../../store/queries/external.js';

/**
 * Copies one store's history into another (`hivewatch migrate`),
 * through the store contract only, so it works between any two engines.
 *
 * The journal is the truth: the source's events are appended to the target in the source's
 * commit order, by the target's own writer (projections, rollups, groups and the target's commit
 * positions are made as if the runs had been journaled there), with the source's wall times
 * (`importedWalls`: a virtual-clock run keeps the walls it had). A batch only ends where no
 * copied run is half-written, so every run is on the target whole or not at all, and a failed
 * copy can be run again: runs already there whole are skipped.
 */

export interface CopyOptions {
  /** Events per batch (a batch grows past it until no run of it is half-copied). Default 2,000. */
  batchEvents?: number;
  /** Events read from the source at a time. Default 5,000. */
  readEvents?: number;
  /** Settings copied where the target has none (see docs/decisions/0028-moving-history-to-a-team-database.md for which and why). */
  settings?: readonly string[];
  /** Plan and check only: nothing is written. */
  dryRun?: boolean;
  /** Called after each batch the target committed. */
  onProgress?: (progress: CopyProgress) => void;
  /** The wall clock of the sessions' bookkeeping write. Default Date.now. */
  now?: () => number;
}

interface CopyProgress {
  runs: number;
  events: number;
  totalRuns: number;
  totalEvents: number;
}

export interface CopyReport {
  /** Runs (and their events, error rows) copied, or that a dry run would copy. */
  runs: number;
  events: number;
  errors: number;
  /** Runs already on the target whole (a second or resumed migrate). */
  skippedRuns: number;
  /** External (agent telemetry) sessions' bookkeeping copied, so their sessions can continue. */
  sessions: number;
  /** Settings copied (the target had none). */
  settings: string[];
  dryRun: boolean;
}

const SHOWN = 5;
const PAGE = 500;

function someOf(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN).join(', ');
  return ids.length > SHOWN ? `${shown}, …` : shown;
}

/** Every run of the store, oldest first. */
async function allRuns(store: HivewatchStore): Promise<RunRow[]> {
  const runs: RunRow[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ sort: 'started', limit: PAGE, cursor });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return runs;
}

/** The same run on both sides: its last seq, status and last event agree. */
async function sameRun(source: HivewatchStore, target: HivewatchStore, run: RunRow, there: RunRow): Promise<boolean> {
  if (there.lastSeq !== run.lastSeq || there.status !== run.status) return false;
  const [mine] = await source.getEvents(run.id, run.lastSeq - 1, 1);
  const [theirs] = await target.getEvents(run.id, run.lastSeq - 1, 1);
  return mine !== undefined && theirs !== undefined && mine.type === theirs.type && mine.ts === theirs.ts;
}

interface Plan {
  copy: Map<string, RunRow>;
  skipped: RunRow[];
  events: number;
  errors: number;
}

async function planCopy(source: HivewatchStore, target: HivewatchStore | null, sourceName: string): Promise<Plan> {
  const runs = await allRuns(source);
  // An agent session still open is no process of this machine: it is copied as it is, and goes
  // on (or is ended by the quiet period) wherever the agent's telemetry goes next.
  const active = runs.filter((r) => ACTIVE_RUN_STATUSES.includes(r.status) && !r.flow.startsWith(EXTERNAL_FLOW_PREFIX));
  if (active.length > 0) {
    throw new StoreError(
      'invalid_argument',
      `${sourceName} has ${active.length} active run(s) (${someOf(active.map((r) => r.id))}): their host is this machine, and on the team database ` +
        `they would look alive forever. Stop the app and every \`hivewatch run\`, run \`hivewatch runs --db ${sourceName}\` once ` +
        '(start-up recovery marks the runs of stopped processes interrupted; they stay resumable), then migrate again',
    );
  }
  const plan: Plan = { copy: new Map(), skipped: [], events: 0, errors: 0 };
  const conflicts: string[] = [];
  for (const run of runs) {
    const there = target ? await target.getRunRow(run.id) : null;
    if (there === null) {
      plan.copy.set(run.id, run);
      plan.events += run.lastSeq;
      plan.errors += run.errorCount;
    } else if (target && (await sameRun(source, target, run, there))) {
      plan.skipped.push(run);
    } else {
      conflicts.push(run.id);
    }
  }
  if (conflicts.length > 0) {
    throw new StoreError(
      'invalid_argument',
      `${target?.location ?? 'the target'} already has ${conflicts.length} run(s) of ${sourceName} with other events (${someOf(conflicts)}); nothing was copied`,
    );
  }
  return plan;
}

/** The external sessions of these runs, as the source keeps them (read from each run's `runStarted`). */
async function sessionsOf(source: HivewatchStore, runIds: Iterable<string>): Promise<ExternalSessionRow[]> {
  const rows: ExternalSessionRow[] = [];
  for (const runId of runIds) {
    const [first] = await source.getEvents(runId, 0, 1);
    if (first?.type !== 'runStarted' || !first.external) continue;
    const row = await source.externalSession(sessionKeyOf(first.external));
    if (row !== null) rows.push(row);
  }
  return rows;
}

class BatchCopier {
  private events: HivewatchEvent[] = [];
  private walls: number[] = [];
  /** Copied runs with events in the batch whose last event is not in it yet. */
  private readonly open = new Set<string>();
  readonly progress: CopyProgress;

  constructor(
    private readonly target: HivewatchStore,
    private readonly runs: ReadonlyMap<string, RunRow>,
    private readonly batchEvents: number,
    totals: { runs: number; events: number },
    private readonly onProgress: ((progress: CopyProgress) => void) | undefined,
  ) {
    this.progress = { runs: 0, events: 0, totalRuns: totals.runs, totalEvents: totals.events };
  }

  async add(event: HivewatchEvent, wall: number): Promise<void> {
    const run = this.runs.get(event.runId);
    if (run === undefined) return;
    this.events.push(event);
    this.walls.push(wall);
    if (event.seq < run.lastSeq) this.open.add(event.runId);
    else {
      this.open.delete(event.runId);
      this.progress.runs += 1;
    }
    if (this.events.length >= this.batchEvents && this.open.size === 0) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.events.length === 0) return;
    await this.target.appendEvents(this.events, { importedWalls: this.walls });
    this.progress.events += this.events.length;
    this.events = [];
    this.walls = [];
    this.onProgress?.({ ...this.progress });
  }
}

/**
 * Copies (or, with `dryRun`, plans) the history. `target` null: a dry run against a database that
 * has no Hivewatch schema yet (everything would be copied).
 */
export async function copyHistory(source: HivewatchStore, target: HivewatchStore | null, options: CopyOptions = {}): Promise<CopyReport> {
  const plan = await planCopy(source, target, source.location);
  const settings: string[] = [];
  for (const key of options.settings ?? []) {
    const value = await source.getSetting(key);
    if (value !== null && (target === null || (await target.getSetting(key)) === null)) settings.push(key);
  }
  const runIds = [...plan.copy.keys(), ...plan.skipped.map((r) => r.id)];
  const sessions = await sessionsOf(source, runIds);
  const report: CopyReport = {
    runs: plan.copy.size,
    events: plan.events,
    errors: plan.errors,
    skippedRuns: plan.skipped.length,
    sessions: sessions.length,
    settings,
    dryRun: options.dryRun ?? false,
  };
  if (options.dryRun || target === null) return report;

  // Issues' status changes first (docs/triage.md): a host on the target watching the copied errors
  // arrive finds their issues announced and their statuses as they were, not a storm of new ones.
  // Dedupe keys make a second (or resumed) copy write nothing twice.
  for (const { id: _id, ...change } of await source.issues.log()) await target.issues.journal(change);

  const copier = new BatchCopier(target, plan.copy, options.batchEvents ?? 2_000, { runs: plan.copy.size, events: plan.events }, options.onProgress);
  const readEvents = options.readEvents ?? 5_000;
  for (let after = 0; ; ) {
    const page = await source.eventsAfterCommit(after, readEvents);
    if (page.length === 0) break;
    for (const { event, wall } of page) await copier.add(event, wall);
    after = page[page.length - 1]!.commitSeq;
  }
  await copier.flush();
  if (copier.progress.runs !== plan.copy.size || copier.progress.events !== plan.events) {
    throw new StoreError(
      'corrupt',
      `${source.location}: its journal holds ${copier.progress.events} events of ${copier.progress.runs} runs to copy, but its runs count ` +
        `${plan.events} events of ${plan.copy.size} runs; check it with \`hivewatch replay\``,
    );
  }
  // After the runs (their rows give the sessions' last seq); an upsert, so a re-run writes it again harmlessly.
  if (sessions.length > 0) {
    await target.ingestExternal({ digest: null, records: 0, receivedAt: (options.now ?? Date.now)(), sessions }, []);
  }
  for (const key of settings) await target.setSetting(key, (await source.getSetting(key))!);
  return report;
}
