import type { RunEnding } from '../../common/ending-chain.js';
import type { TelemetrySilence } from '../../common/telemetry-silence.js';
import { endingErrorOf, endingSummary, type HivewatchStore, type RunRow } from '../../store/index.js';
import { silentSources } from '../telemetry/health.js';

/**
 * The run list as the CLI's `runs` prints it: each run's row as the history keeps it, with its
 * ending error, its tokens and cost, and (for a running run) its telemetry silence. The window's
 * list is the API's `listRuns` (RunSummary); the CLI's `--json` keeps the row's own shape.
 */

/** The filters and page size of `hivewatch runs`. */
export type RunRecordQuery = Parameters<HivewatchStore['listRuns']>[0];

/** A run's row with its ending error, its usage (null for a run whose attempts reported none) and its telemetry silence. */
export type RunRecord = RunRecordPage['runs'][number];

/** One page of the run list as records, and the cursor of the next. */
export type RunRecordPage = Awaited<ReturnType<typeof runRecords>>;

/** Per running run, its telemetry silence (docs/otel.md "Telemetry health"); the longest when several. */
async function silenceByRun(store: HivewatchStore, runs: readonly RunRow[], now: number): Promise<Map<string, TelemetrySilence>> {
  const found = new Map<string, TelemetrySilence>();
  if (!runs.some((r) => r.status === 'running')) return found;
  for (const { runId, flow: _flow, flowName: _name, ...silence } of await silentSources(store, now)) {
    if ((found.get(runId)?.silentMs ?? -1) < silence.silentMs) found.set(runId, silence);
  }
  return found;
}

/** One page of runs as records; `now` judges telemetry silence. */
export async function runRecords(store: HivewatchStore, query: RunRecordQuery, now: number) {
  const page = await store.listRuns(query);
  const silent = await silenceByRun(store, page.runs, now);
  const usage = await store.usage({ kind: 'runs', runIds: page.runs.map((r) => r.id) });
  const runs = page.runs.map((r) => ({ ...r, endingError: endingErrorOf(r), usage: usage.get(r.id) ?? null, telemetrySilence: silent.get(r.id) ?? null }));
  return { runs, nextCursor: page.nextCursor };
}

/** A failed run's ending error in the words an operator reads first: the root cause, then how the run gave up on it. */
export function endingWords(ending: RunEnding): string {
  return endingSummary(ending);
}
