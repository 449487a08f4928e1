import { SILENCE_READ, SILENT_AFTER_INTERVALS, silenceOf } from '../../common/telemetry-silence.js';
import type { HivewatchStore } from '../../store/contract.js';
import { telemetrySources, type TelemetrySource } from '../../store/queries/telemetry-sources.js';
import type { RunDetail, RunSummary, RunTelemetrySilence } from '../api.js';

/**
 * Telemetry health (docs/otel.md "Telemetry health"): the sources expected to be sending now
 * (core/store/queries/telemetry-sources.ts) judged against their exporters' intervals, as of `now`.
 * The Runs list, the run page, `hivewatch runs` and the `telemetry-silent-longer-than` alert all
 * read this one answer.
 */

export interface SilentSource extends RunTelemetrySilence {
  runId: string;
  flow: string;
  flowName: string;
}

export async function silentSources(store: HivewatchStore, now: number): Promise<SilentSource[]> {
  // Only sources older than twice their interval could be silent: the rest are not read.
  const cutoffs = {
    seenBefore: now - SILENT_AFTER_INTERVALS * SILENCE_READ.fastEveryMs,
    fastOrigin: SILENCE_READ.fastOrigin,
    othersSeenBefore: now - SILENT_AFTER_INTERVALS * SILENCE_READ.othersEveryMs,
  };
  const sources = await store.runStatements((d) => telemetrySources(d, cutoffs, now));
  return sources.flatMap((source: TelemetrySource) => {
    const silence = silenceOf(source.origin, source.lastSeenAt, source.expectedSince, now);
    return silence ? [{ ...silence, runId: source.runId, flow: source.flow, flowName: source.flowName, taskId: source.taskId, attempt: source.attempt }] : [];
  });
}

/** Per run, its longest silence (a run with two silent attempts says the older one). */
function byRun(silent: readonly SilentSource[]): Map<string, RunTelemetrySilence> {
  const found = new Map<string, RunTelemetrySilence>();
  for (const { runId, flow: _flow, flowName: _name, ...silence } of silent) {
    const known = found.get(runId);
    if (!known || known.silentMs < silence.silentMs) found.set(runId, silence);
  }
  return found;
}

/** The summaries with `telemetrySilence` set on the runs whose source is silent now. */
export async function withTelemetrySilence(store: HivewatchStore, runs: readonly RunSummary[], now: number): Promise<RunSummary[]> {
  if (!runs.some((r) => r.status === 'running')) return [...runs];
  const silent = byRun(await silentSources(store, now));
  return runs.map((run) => {
    const silence = silent.get(run.id);
    return silence ? { ...run, telemetrySilence: silence } : run;
  });
}

export async function withDetailTelemetrySilence(store: HivewatchStore, detail: RunDetail, now: number): Promise<RunDetail> {
  const [run] = await withTelemetrySilence(store, [detail.run], now);
  return run === detail.run ? detail : { ...detail, run: run! };
}
