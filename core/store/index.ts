/**
 * core/store: the SQLite journal of every event, the projections and error rollups derived from
 * it, the queries the product reads, start-up recovery, replay parity and pruning.
 */
export { openStore, isPostgresUrl, printableLocation } from './open.js';
export { openSqliteStore } from './store.js';
export type { SqliteStore, OpenStoreOptions } from './sqlite-store.js';
export { StoreEngine } from './contract.js';
export type { HivewatchStore, CommittedListener, StoreStats, RunHost, NewRunCommand } from './contract.js';
export { defaultDatabasePath, openDatabase } from './database.js';
export type { DatabaseOptions, Synchronous } from './database.js';
export { createDurableSink, DEFAULT_BACKGROUND_RETRY_MS, DEFAULT_WRITE_RETRY_DELAYS_MS } from './sink.js';
export type { DurableSink, DurableSinkOptions, EventAppender, Refusal } from './sink.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion } from './migrations.js';
export type { Migration } from './migrations.js';
export { StoreError, isStoreError } from './store-error.js';
export type { StoreErrorKind } from './store-error.js';
export { fingerprintOf, normalizeMessage } from './fingerprint.js';
export { applyEvent, projectJournal, reduceAttempt, reduceRun, reduceStep, reduceTask } from './projections.js';
export type { RunState } from './projections.js';
export { planWindow, MINUTE, HOUR, DAY, GRAIN_MS } from './rollups.js';
export type { Grain, RollupDimension } from './rollups.js';
export type {
  RunRow, StepRow, TaskRow, AttemptRow, ErrorRow, CheckpointRow, StepStatus, TaskStatus, AttemptStatus,
} from './schema.js';
export { TERMINAL_RUN_STATUSES, ACTIVE_RUN_STATUSES, RESUMABLE_RUN_STATUSES, DISPOSITIONS } from './schema.js';
export type { ErrorDisposition, LateResult } from './schema.js';
export { endingErrorOf } from './ending.js';
export type { RunEnding } from './ending.js';
export type { ListRunsQuery, RunFilters, RunCounts, RunPage, RunDetail, RunSort, RunSortKey } from './queries/runs.js';
export { RUN_SORT_KEYS } from './queries/runs.js';
export type { LineageRun, RunLineage } from './queries/lineage.js';
export type {
  ErrorFilters, ErrorDimension, ErrorCountsQuery, ErrorCount, ErrorSeriesQuery, ErrorSeries, ListErrorsQuery,
  ErrorOccurrence, ErrorPage,
} from './queries/errors.js';
export type { ErrorGroupsQuery, ErrorGroup, GroupTrendsQuery } from './queries/groups.js';
export { HANDLED_KEY, UNHANDLED_KEY, PENDING_KEY } from './queries/errors.js';
export { FAILURE_DIMENSIONS } from './queries/failures.js';
export type { FailureCounts, FailureCountsQuery, FailureCountRow, FailureDimension } from './queries/failures.js';
export type { RecoveredRun, RecoverOptions } from './recovery.js';
export type { CommittedEvent } from './queries/events.js';
export { RunCommandKind, RunCommandState } from './commands.js';
export type { RunCommand } from './commands.js';
export type { ReplayReport, AggregateReport } from './replay.js';
export type { PruneOptions, PruneReport } from './prune.js';
export type { AttemptTelemetryLink, ExternalBatch, ExternalSessionRow } from './external.js';
