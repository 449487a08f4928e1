import { EXTERNAL_FLOW_PREFIX } from '../otel/mapping.js';
import type { DurableSink, HivewatchStore, RunRow } from '../store/index.js';
import { ApiError } from '../common/api-errors.js';
import { asApiError } from './wire-error.js';
import type { FlowCatalog } from './flows/catalog.js';
import type { HostedRuns } from './runs/hosted.js';
import type { HivewatchServiceOptions } from './service-types.js';

/**
 * What the service's parts share (service.ts composes them): the store, the journal's sink, the
 * runs this process hosts, the flow catalog, and the few helpers every method uses.
 */
export interface ServiceContext {
  readonly store: HivewatchStore;
  readonly options: HivewatchServiceOptions;
  readonly sink: DurableSink;
  readonly runs: HostedRuns;
  readonly catalog: FlowCatalog;
  /** Writes what the journal holds in memory before a command reads a run's state; a 503 when it cannot. */
  readonly writePending: () => Promise<void>;
}

/** Runs a service method: store errors become ApiErrors, so every caller sees 400/404/409 alike. */
export async function guard<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw asApiError(error);
  }
}

/**
 * Writes what the journal still holds in memory: after a write failure (a full disk) the failed
 * runs' last events wait in the sink, and once there is room they land here, so the run reads
 * failed and can be resumed.
 */
export async function flushOr503(sink: DurableSink): Promise<void> {
  try {
    await sink.flush();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ApiError('journal_unwritable', `${message}; try again once the database can be written (disk space, the server reachable)`);
  }
}

/** The run's row, or a 404. */
export async function runRowOr404(store: HivewatchStore, runId: string): Promise<RunRow> {
  const row = await store.getRunRow(runId);
  if (!row) throw new ApiError('run_not_found', `no run ${runId}`);
  return row;
}

/** An agent session seen through its telemetry: watched, never run by Hivewatch. */
export const isExternal = (row: RunRow): boolean => row.flow.startsWith(EXTERNAL_FLOW_PREFIX);

/** Why an external run cannot be acted on from here; `what` names the act and where it belongs. */
export const externalRefusal = (row: RunRow, what: string): string =>
  `run ${row.id} is an agent session seen through its telemetry (${row.flowName}); Hivewatch did not start it and cannot ${what}`;

export function refuseExternal(row: RunRow, what: string): void {
  if (isExternal(row)) throw new ApiError('external_run', externalRefusal(row, what));
}
